// Deferred approvals and suspended turns, read from the log.

export type { ApprovalAnswerInput, ApprovalPlan } from './answer.js';
export { cancelledApprovals, expiredApprovals, planApprovalAnswer } from './answer.js';
export type { ApprovalErrorCode } from './approvalError.js';
export { ApprovalError } from './approvalError.js';
export { hashArguments } from './argsHash.js';
export type { ApprovalRecord, ResumePoint, ResumeSlot, Suspension } from './suspension.js';
export { approvalRecords, findResumePoint, findSuspension, nextRequestId } from './suspension.js';
