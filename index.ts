// seamchart's public entry.

export {
  type AcpAgent,
  type AcpMcpServer,
  type AcpServer,
  type AcpSession,
  type AcpSessionRequest,
  type ServeAcpOptions,
  serveAcp,
} from './bridges/acp/index.js';
export {
  type ClaudeCodeHooksOptions,
  type CodexHooksOptions,
  capabilityHeadline,
  claudeCodeHooks,
  codexHooks,
  decidePermission,
  findProjectSettings,
  formatCapabilities,
  formatCapabilitySummary,
  type HookBridge,
  type HookBridgeOptions,
  HookConfigError,
  hookInvoked,
  hookResult,
  loadHookPlugins,
  loadPermissionSet,
  PERMISSION_MODES,
  type PermissionDecision,
  type PermissionMode,
  type PermissionRequest,
  type PermissionSet,
  type ProjectFile,
  type ProjectSettings,
  parsePermissionMode,
  rememberTrust,
  TrustFileError,
  type TrustState,
  toolClass,
  trustFilePath,
  trustState,
} from './bridges/index.js';
export * from './distributed/index.js';
export * from './inspect/index.js';
// The shared vocabulary: data shapes, log event schemas, failure codes.
export * from './kernel/events.js';
export { describeThrown, TurnFailureCode, toFailure } from './kernel/failure.js';
export * from './kernel/schemas.js';
export type * from './kernel/types.js';
export * from './machines/index.js';
export * from './model/index.js';
// Process ownership, for hosts that exit on a signal (the CLI): nothing a run started outlives it.
export { killOwnedProcesses } from './process/index.js';
export * from './seams/index.js';
export * from './session/index.js';
export * from './telemetry/index.js';
export {
  createDemoTools,
  DEFAULT_MAX_CONTENT_BYTES,
  type DemoToolsOptions,
  defineTool,
  plugins,
  ToolPipelineError,
} from './tools/index.js';
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
} from './tools/mcp/index.js';
export type {
  Concurrency,
  ExecuteOptions,
  ToolCallRequest,
  ToolDefinition,
  ToolDefinitionInput,
  ToolKind,
  ToolOutput,
  ToolRegistry,
  ToolRegistryCore,
} from './tools/types.js';
export * from './visualize/index.js';
