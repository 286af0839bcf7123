export { boundToolResult, DEFAULT_MAX_CONTENT_BYTES, maxContentBytesOf } from './boundContent.js';
export { defineTool, isToolDefinition } from './defineTool.js';
export { createDemoTools, type DemoToolsOptions } from './demo.js';
export { type CoreDispatchOptions, createCoreDispatch } from './dispatch.js';
export { ToolPipelineError } from './errors.js';
export { runFinalizer } from './finalize.js';
export { deepFreezeJson, formatJsonFailure, type JsonSnapshot, snapshotJson } from './json.js';
export {
  assertDistinctServers,
  type ConnectMcpOptions,
  connectMcpServers,
  loadMcpConfig,
  McpConfigError,
  type McpConnection,
  type McpServerFailure,
  type McpStdioServer,
  type MergedMcpServers,
  mcpToolName,
  mergeMcpServers,
  parseMcpConfig,
} from './mcp/index.js';
export { parseToolArgs, renderDefault, renderToolValue } from './output.js';
export * as plugins from './plugins/index.js';
export { type AppliedPostDecision, applyPostDecision } from './postDecision.js';
export {
  createRewriteCheck,
  describeToolCallRecord,
  isPreparable,
  type PrepareOutcome,
  prepareToolInput,
  type ToolCallRecord,
} from './prepare.js';
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
  type DetachedCall,
  definitionAtSeal,
  detachToolCall,
  type PreparedInput,
  parseToolArguments,
  type RawToolCall,
  type SealedCall,
  sealExecution,
  sealToolCall,
} from './seal.js';
export { AbortFanout, eitherSignal, fanoutOf, type LinkedSignal, linkSignals } from './signals.js';
export type * from './types.js';
