// The machines/toolBatch folder's only public face.
export { createToolBatchLogic, provideToolBatchLogic } from './logic.js';
export type { ToolBatchInput, ToolBatchOutput } from './types.js';
