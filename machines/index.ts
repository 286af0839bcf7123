// The machines folder's only public face.

export {
  type Agent,
  type AgentOptions,
  type AgentStreamItem,
  type AgentStreamOptions,
  type ApprovalResolution,
  createAgent,
  createAgentLogic,
  type PendingApproval,
  type ResolveApprovalOptions,
} from './agent/index.js';
export { agentMachine, graphEvents as agentGraphEvents } from './agent.js';
export type { ToolMachineServices, TurnMachineServices } from './runtime/index.js';
export { type LiveHandles, liveHandlesOf, type RunScope, ScopeTable } from './runtime/index.js';
export { createToolBatchLogic } from './toolBatch/index.js';
export { graphEvents as toolBatchGraphEvents, toolBatchMachine } from './toolBatch.js';
export { createToolCallLogic, createToolRegistry } from './toolCall/index.js';
export { graphEvents as toolCallGraphEvents, toolCallMachine } from './toolCall.js';
export { createTurnLogic } from './turn/index.js';
export { graphEvents as turnGraphEvents, turnMachine } from './turn.js';
