// The machines folder's only public face.

export {
  type Agent,
  type AgentOptions,
  type AgentStreamItem,
  type AgentStreamOptions,
  type ApprovalResolution,
  createAgent,
  type PendingApproval,
  type ResolveApprovalOptions,
} from './agent/createAgent.js';
export { createAgentLogic } from './agent/logic.js';
export { agentMachine, graphEvents as agentGraphEvents } from './agent.js';
export { type LiveHandles, liveHandlesOf } from './runtime/liveHandles.js';
export { type RunScope, ScopeTable } from './runtime/scopeTable.js';
export type { ToolMachineServices, TurnMachineServices } from './runtime/services.js';
export { createToolBatchLogic } from './toolBatch/logic.js';
export { graphEvents as toolBatchGraphEvents, toolBatchMachine } from './toolBatch.js';
export { createToolRegistry } from './toolCall/createToolRegistry.js';
export { createToolCallLogic } from './toolCall/logic.js';
export { graphEvents as toolCallGraphEvents, toolCallMachine } from './toolCall.js';
export { createTurnLogic } from './turn/logic.js';
export { graphEvents as turnGraphEvents, turnMachine } from './turn.js';
