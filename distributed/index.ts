// The distributed folder's only public face: PostgreSQL sessions run by a pool of DBOS workers.
export type {
  QueuedApprovalResult,
  ResolveQueuedApprovalInput,
  SessionApprovals,
} from './approvals.js';
export { DistributedError, type DistributedErrorCode } from './errors.js';
export { type MigrateOptions, migrate } from './migrate.js';
export { type Delivery, type DeliveryOutcome, SESSIONS_QUEUE } from './names.js';
export {
  connectQueue,
  listApprovals,
  type QueueConnection,
  type QueueConnectionOptions,
  resolveApproval,
  type SendMessageInput,
  sendMessage,
} from './queueClient.js';
export { createWorker, type Worker, type WorkerAgentOptions, type WorkerOptions } from './worker.js';
