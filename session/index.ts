// The session folder's only public face.

export {
  type ListedApproval,
  listPendingApprovals,
  type RecordedAnswer,
  recordApprovalAnswer,
} from './approvalAnswers.js';
export type {
  ApprovalAnswerInput,
  ApprovalErrorCode,
  ApprovalPlan,
  ApprovalRecord,
  ResumePoint,
  ResumeSlot,
  Suspension,
} from './approvals/index.js';
export {
  ApprovalError,
  approvalRecords,
  cancelledApprovals,
  expiredApprovals,
  findResumePoint,
  findSuspension,
  hashArguments,
  nextRequestId,
  planApprovalAnswer,
} from './approvals/index.js';
export type { LogEventDefinition } from './defineLogEvent.js';
export { defineLogEvent } from './defineLogEvent.js';
export type {
  LockHolder,
  SessionLoadErrorCode,
  SessionLogErrorCode,
  SessionStoreErrorCode,
} from './errors.js';
export { SessionLoadError, SessionLockedError, SessionLogError, SessionStoreError } from './errors.js';
export { isCoreEventType } from './eventSchema.js';
export type { PendingInboxItem } from './inbox.js';
export { coreTurnEvents, lastMessageNumber, pendingInboxItems } from './inbox.js';
export type {
  AcceptedStepContexts,
  CheckInvariantsOptions,
  InvariantName,
  LedgerNotification,
  LedgerOptions,
} from './invariants/index.js';
export { checkInvariants, checkLedger, formatViolation, Invariant } from './invariants/index.js';
export { DEFAULT_MAX_LINE_BYTES, eventLineBytes } from './limits.js';
export type { SessionLogOptions } from './log.js';
export { createSessionLog } from './log.js';
export type { OpenPosition, RepairOptions, RepairResult } from './repair.js';
export { repairEvents } from './repair.js';
export type {
  CreateJsonlStoreOptions,
  JsonlLog,
  JsonlStore,
  MemoryStoreOptions,
  OpenJsonlStoreOptions,
  OpenPostgresStoreOptions,
  PostgresStore,
  PostgresStoreOptions,
  ReadJsonlLogOptions,
} from './stores/index.js';
export {
  createJsonlStore,
  createPostgresStore,
  DEFAULT_SESSION_SCHEMA,
  memoryStore,
  migrateSessionTables,
  openJsonlStore,
  openPostgresStore,
  readJsonlLog,
  readPostgresLog,
  SESSION_SCHEMA_VERSION,
  sessionSchemaVersion,
  withPoolClient,
} from './stores/index.js';
export type { SessionLog, SessionStore, Violation } from './types.js';
export { addUsage, createUsageCounter, sumUsage, turnUsage } from './usage.js';
