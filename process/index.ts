export { killOwnedProcesses, ownerMarkerName } from './ownedProcesses.js';
export { signalGroup } from './processTable.js';
export { createProcessTree, type ProcessTree } from './processTree.js';
export { type ProcessRun, type RunProcessOptions, runProcess } from './runProcess.js';
