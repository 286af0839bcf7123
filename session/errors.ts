/** Why an append was refused. */
export type SessionLogErrorCode =
  | 'REENTRANT_APPEND'
  | 'UNKNOWN_TYPE'
  | 'CORE_TYPE_REFUSED'
  | 'NOT_CORE_TYPE'
  | 'INVALID_DATA'
  | 'NO_OPEN_TURN'
  | 'STORE_WRITE_FAILED';

/** An append the session log refused; nothing was recorded. */
export class SessionLogError extends Error {
  override readonly name = 'SessionLogError';
  readonly code: SessionLogErrorCode;
  constructor(code: SessionLogErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Why a store operation failed. */
export type SessionStoreErrorCode = 'FILE_EXISTS' | 'WRITE_FAILED' | 'CLOSED';

/** A store that could not be created or written. */
export class SessionStoreError extends Error {
  override readonly name = 'SessionStoreError';
  readonly code: SessionStoreErrorCode;
  readonly path: string;
  constructor(code: SessionStoreErrorCode, path: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.path = path;
  }
}

/** Why a session file could not be loaded. */
export type SessionLoadErrorCode =
  | 'READ_FAILED'
  | 'EMPTY_FILE'
  | 'MALFORMED_HEADER'
  | 'MALFORMED_LINE'
  | 'ID_MISMATCH';

/** A session file that could not be loaded; the file was not modified. */
export class SessionLoadError extends Error {
  override readonly name = 'SessionLoadError';
  readonly code: SessionLoadErrorCode;
  readonly path: string;
  /** 1-based line of the file (the header is line 1), when one line is to blame. */
  readonly line: number | undefined;
  constructor(
    code: SessionLoadErrorCode,
    path: string,
    line: number | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = code;
    this.path = path;
    this.line = line;
  }
}
