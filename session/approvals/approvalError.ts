/** Why `agent.resolveApproval()` (or `seamchart approve`) refused an answer; nothing was written. */
export type ApprovalErrorCode =
  | 'UNKNOWN_APPROVAL'
  | 'APPROVAL_ALREADY_RESOLVED'
  | 'APPROVAL_STALE'
  | 'NOT_SUSPENDED'
  | 'AGENT_FAILED'
  | 'AGENT_DISPOSED';

/** An answer to a deferred approval that was refused; the log is unchanged. */
export class ApprovalError extends Error {
  override readonly name = 'ApprovalError';
  readonly code: ApprovalErrorCode;
  readonly requestId: string;
  constructor(code: ApprovalErrorCode, requestId: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.requestId = requestId;
  }
}
