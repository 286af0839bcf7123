/** Why a distributed request was refused before anything was enqueued. */
export type DistributedErrorCode = 'UNKNOWN_SESSION' | 'SESSION_EXISTS';

/** A `sendMessage` (or `seamchart send`) refused before enqueuing anything (the CLI exits 2). */
export class DistributedError extends Error {
  override readonly name = 'DistributedError';
  readonly code: DistributedErrorCode;
  readonly sessionId: string;
  constructor(code: DistributedErrorCode, sessionId: string, message: string) {
    super(message);
    this.code = code;
    this.sessionId = sessionId;
  }
}
