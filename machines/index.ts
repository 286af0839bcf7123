// The machines folder's only public face.
export { agentMachine, createAgentLogic, graphEvents as agentGraphEvents } from './agent.js';
export { type Agent, type AgentOptions, createAgent } from './createAgent.js';
export { type RunScope, ScopeTable } from './scope.js';
export type { ToolMachineServices, TurnMachineServices } from './services.js';
export { createToolRegistry } from './standalone.js';
export { createToolBatchLogic, graphEvents as toolBatchGraphEvents, toolBatchMachine } from './toolBatch.js';
export { createToolCallLogic, graphEvents as toolCallGraphEvents, toolCallMachine } from './toolCall.js';
export { createTurnLogic, graphEvents as turnGraphEvents, turnMachine } from './turn.js';
