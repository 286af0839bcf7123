// The machines/agent folder's only public face.
export {
  type Agent,
  type AgentOptions,
  type AgentStreamItem,
  type AgentStreamOptions,
  type ApprovalResolution,
  createAgent,
  type PendingApproval,
  type ResolveApprovalOptions,
} from './createAgent.js';
export { createAgentLogic } from './logic.js';
