/** Why an append was refused. */
export type SessionLogErrorCode =
  | 'REENTRANT_APPEND'
  | 'UNKNOWN_TYPE'
  | 'CORE_TYPE_REFUSED'
  | 'NOT_CORE_TYPE'
  | 'INVALID_DATA'
  | 'NO_OPEN_TURN'
  | 'LINE_TOO_LONG'
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
export type SessionStoreErrorCode =
  | 'FILE_EXISTS'
  | 'CREATE_FAILED'
  | 'WRITE_FAILED'
  | 'FSYNC_FAILED'
  | 'LINE_TOO_LONG'
  | 'CLOSED'
  | 'FENCED'
  | 'SESSION_EXISTS';

/**
 * A store that could not be created or written. After a failed write or fsync the store is latched: every later
 * write throws this same error without doing I/O, so the in-memory log always equals the file.
 */
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
  | 'NOT_FOUND'
  | 'PERMISSION_DENIED'
  | 'READ_ONLY'
  | 'READ_FAILED'
  | 'REPAIR_FAILED'
  | 'LOCK_FAILED'
  | 'LINE_TOO_LONG'
  | 'EMPTY_FILE'
  | 'MALFORMED_HEADER'
  | 'MALFORMED_LINE'
  | 'ID_MISMATCH'
  | 'NOT_MIGRATED'
  | 'TOO_LARGE'
  | 'NEEDS_REPAIR';

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

/** Who holds a session lock, as its lock file records it. */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** ISO-8601 time the lock was taken. */
  readonly since: string;
}

/** A second writer: the session file is locked by another store (in this process or another); it was not touched. */
export class SessionLockedError extends Error {
  override readonly name = 'SessionLockedError';
  readonly code = 'SESSION_LOCKED';
  readonly path: string;
  readonly holder: LockHolder;
  /** `alive`: the holder runs on this host (never broken); `unknown`: another host or an unreadable lock (`breakLock` may break it). */
  readonly holderState: 'alive' | 'unknown';
  constructor(path: string, holder: LockHolder, message: string, holderState: 'alive' | 'unknown' = 'alive') {
    super(message);
    this.path = path;
    this.holder = holder;
    this.holderState = holderState;
  }
}
