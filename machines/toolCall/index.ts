// The machines/toolCall folder's only public face.
export { createToolRegistry } from './createToolRegistry.js';
export { createToolCallLogic, provideToolCallLogic } from './logic.js';
export { createAbortedBeforeDispatch } from './rules.js';
export type { ParkedRequest, ToolCallOutput, ToolCallReport, ToolCallResume } from './types.js';
