// The machines folder's only public face.

export { type Agent, type AgentOptions, createAgent } from './agent/createAgent.js';
export { agentMachine, createAgentLogic, graphEvents as agentGraphEvents } from './agent.js';
export { type RunScope, ScopeTable } from './runtime/scopeTable.js';
export type { ToolMachineServices, TurnMachineServices } from './runtime/services.js';
export { createToolBatchLogic, graphEvents as toolBatchGraphEvents, toolBatchMachine } from './toolBatch.js';
export { createToolRegistry } from './toolCall/createToolRegistry.js';
export { createToolCallLogic, graphEvents as toolCallGraphEvents, toolCallMachine } from './toolCall.js';
export { createTurnLogic, graphEvents as turnGraphEvents, turnMachine } from './turn.js';
