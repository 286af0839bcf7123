// The bridges folder's only public face.

export {
  type AcpAgent,
  type AcpMcpServer,
  type AcpServer,
  type AcpSession,
  type AcpSessionRequest,
  type ServeAcpOptions,
  serveAcp,
} from './acp/index.js';
export type { HookBridge } from './bridge.js';
export type { CapabilityReport, HandlerCapability, PermissionsCapability } from './capabilities.js';
export { capabilityHeadline, formatCapabilities, formatCapabilitySummary } from './capabilities.js';
export { type ClaudeCodeHooksOptions, claudeCodeHooks } from './claude-code/index.js';
export { decodeHookOutput, MAX_CONTEXT_CHARS } from './codec.js';
export { type CodexHooksOptions, codexHooks } from './codex/index.js';
export { HookConfigError, type HookConfigErrorCode } from './errors.js';
export { type HookInvokedData, type HookResultData, hookInvoked, hookResult } from './events.js';
export { type HookPluginFiles, loadHookPlugins } from './loadHookPlugins.js';
export { compileMatcher, MatcherSyntaxError } from './matcher.js';
export { mergeVerdicts } from './merge.js';
export type { HookBridgeOptions } from './options.js';
export {
  decidePermission,
  loadPermissionSet,
  mergePermissions,
  PERMISSION_MODES,
  type PermissionBehavior,
  type PermissionCall,
  type PermissionDecision,
  type PermissionLayer,
  type PermissionMode,
  type PermissionRequest,
  type PermissionRule,
  type PermissionScope,
  type PermissionSet,
  type PermissionSource,
  parsePermissionMode,
  readPermissionLayer,
  toolClass,
} from './permissions.js';
export {
  findProjectSettings,
  PROJECT_SETTINGS_FILES,
  type ProjectFile,
  type ProjectSettings,
  rememberTrust,
  TrustFileError,
  type TrustState,
  trustFilePath,
  trustState,
} from './projectTrust.js';
export { type RunHookOptions, runHook } from './runner.js';
export type {
  Dialect,
  HookEventName,
  HookRun,
  HookVerdict,
  LoggedDecision,
  MergedVerdict,
} from './types.js';
export { HookEvent } from './types.js';
