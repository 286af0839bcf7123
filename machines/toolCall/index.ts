// The machines/toolCall folder's only public face.
export { createToolRegistry } from './createToolRegistry.js';
export { type DirectSettlement, directCall, takesDirectPath } from './direct.js';
export { createToolCallLogic, provideToolCallLogic } from './logic.js';
export type { CallRuntime } from './phases.js';
export { createAbortedBeforeDispatch } from './rules.js';
export type { ParkedRequest, ToolCallOutput, ToolCallReport, ToolCallResume } from './types.js';
