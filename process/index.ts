export { createProcessTree, type ProcessTree, signalGroup } from './processTree.js';
export { type ProcessRun, type RunProcessOptions, runProcess } from './runProcess.js';
