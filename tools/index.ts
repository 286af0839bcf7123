export {
  type ApprovalAsk,
  type ApprovalRefusalKind,
  type ApprovalVerdict,
  decideApproval,
} from './approval.js';
export { defineTool, isToolDefinition } from './defineTool.js';
export { createDemoTools, type DemoToolsOptions } from './demo.js';
export { type CoreDispatchOptions, createCoreDispatch } from './dispatch.js';
export { ToolPipelineError } from './errors.js';
export { runFinalizer } from './finalize.js';
export { deepFreezeJson, formatJsonFailure, type JsonSnapshot, snapshotJson } from './json.js';
export { parseToolArgs, renderDefault, renderToolValue } from './output.js';
export * as plugins from './plugins/index.js';
export { type AppliedPostDecision, applyPostDecision } from './postDecision.js';
export { createToolRegistryCore, describeTool } from './registry.js';
export {
  createFailureResult,
  createSuccessResult,
  ToolMessage,
  withContexts,
  withoutContexts,
} from './results.js';
export {
  type ContentFinalizer,
  definitionAtSeal,
  parseToolArguments,
  type RawToolCall,
  type SealedCall,
  sealExecution,
} from './seal.js';
export { eitherSignal } from './signals.js';
export type * from './types.js';
