// Deferred approvals and suspended turns, read from the log.
export { planApprovalAnswer, expiredApprovals, cancelledApprovals } from './answer.js';
export type { ApprovalAnswerInput, ApprovalPlan } from './answer.js';
export { ApprovalError } from './approvalError.js';
export type { ApprovalErrorCode } from './approvalError.js';
export { hashArguments } from './argsHash.js';
export { approvalRecords, findResumePoint, findSuspension, nextRequestId } from './suspension.js';
export type { ApprovalRecord, ResumePoint, ResumeSlot, Suspension } from './suspension.js';
