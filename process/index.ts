export { killOwnedProcesses, ownerMarkerName } from './ownedProcesses.js';
export { createProcessTree, type ProcessTree } from './processTree.js';
export { type ProcessRun, type RunProcessOptions, runProcess } from './runProcess.js';
