import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { z } from 'zod';
import { type LockHolder, SessionLoadError, SessionLockedError } from '../errors.js';
import { errnoCode, fsyncDirectory, nodeFileIo } from './fileIo.js';

/** A held session lock: `<file>.lock`, released by `release()` or when the process exits. */
export interface SessionLock {
  readonly path: string;
  readonly holder: LockHolder;
  /** What taking the lock had to do (a dead holder taken over, a lock broken on request), one line each. */
  readonly repairs: readonly string[];
  release(): void;
}

export interface AcquireLockOptions {
  /** Break a lock whose holder is alive, on another host, or unclear. */
  breakLock?: boolean;
}

const LockFileSchema = z.object({
  pid: z.number().int().positive(),
  host: z.string(),
  since: z.string(),
  nonce: z.string(),
});
type LockFile = z.infer<typeof LockFileSchema>;

/** Whether the holder of a lock is known to be running, known dead, or cannot be told from here. */
export type HolderState = 'alive' | 'dead' | 'unknown';

const MAX_ATTEMPTS = 8;

/** The lock file of a session file. */
export function lockPathOf(sessionPath: string): string {
  return `${sessionPath}.lock`;
}

/**
 * Takes the session's lock file, created atomically (a fully written file hard-linked into place, so a reader
 * never sees a half-written lock). A lock held by a dead process on this host is taken over; any other holder
 * makes it throw `SessionLockedError` unless `breakLock`.
 * @param sessionPath the session file the lock guards
 * @param options whether to break a live or foreign lock
 */
export function acquireSessionLock(sessionPath: string, options: AcquireLockOptions = {}): SessionLock {
  const path = lockPathOf(sessionPath);
  const repairs: string[] = [];
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const mine: LockFile = {
      pid: process.pid,
      host: hostname(),
      since: new Date().toISOString(),
      nonce: randomUUID(),
    };
    if (tryCreate(path, mine, sessionPath)) {
      const holder: LockHolder = { pid: mine.pid, host: mine.host, since: mine.since };
      return Object.freeze({
        path,
        holder,
        repairs: Object.freeze(repairs),
        release: releaseOnExit(path, mine.nonce),
      });
    }
    const seen = readLockText(path);
    if (seen === undefined) continue; // released in between: try again
    const existing = parseLock(seen);
    const state = existing === undefined ? 'unknown' : holderState(existing);
    const who = existing === undefined ? 'an unreadable lock' : describeHolder(existing);
    // A holder alive on this host is never broken, whatever `breakLock` says: two writers corrupt the file.
    if (state === 'alive' || (state === 'unknown' && options.breakLock !== true)) {
      throw new SessionLockedError(
        sessionPath,
        existing === undefined ? { pid: 0, host: 'unknown', since: 'unknown' } : holderOf(existing),
        `Session file ${sessionPath} is locked by ${who} (${path}); ` +
          (state === 'alive'
            ? `only one writer may hold a session, and process ${existing?.pid} is still running on this host: ` +
              'close that store or wait for it to exit (the lock of a live process is never broken)'
            : 'if that process is gone, break the lock (open with breakLock: true)'),
        state,
      );
    }
    if (takeOver(path, seen)) {
      repairs.push(
        state === 'dead'
          ? `lock: took over the lock of ${who}, which is no longer running`
          : `lock: broke the lock of ${who} (breakLock)`,
      );
    }
  }
  throw new SessionLoadError(
    'LOCK_FAILED',
    sessionPath,
    undefined,
    `Cannot lock session file ${sessionPath}: ${path} kept changing while ${MAX_ATTEMPTS} attempts tried to take it`,
  );
}

/**
 * Reads who holds a session's lock, never taking or changing it (for readers of a live session).
 * @param sessionPath the session file
 */
export function readSessionLock(sessionPath: string): { holder: LockHolder; state: HolderState } | undefined {
  const text = readLockText(lockPathOf(sessionPath));
  const lock = text === undefined ? undefined : parseLock(text);
  return lock === undefined ? undefined : { holder: holderOf(lock), state: holderState(lock) };
}

function tryCreate(path: string, lock: LockFile, sessionPath: string): boolean {
  const staging = `${path}.${lock.pid}.${lock.nonce}`;
  try {
    fs.writeFileSync(staging, `${JSON.stringify(lock)}\n`, { mode: 0o600, flag: 'wx', flush: true });
    try {
      fs.linkSync(staging, path);
    } catch (error) {
      if (errnoCode(error) === 'EEXIST') return false;
      throw error;
    } finally {
      fs.rmSync(staging, { force: true });
    }
    fsyncDirectory(nodeFileIo, dirname(path));
    return true;
  } catch (error) {
    throw new SessionLoadError(
      errnoCode(error) === 'EACCES' || errnoCode(error) === 'EPERM' || errnoCode(error) === 'EROFS'
        ? 'PERMISSION_DENIED'
        : 'LOCK_FAILED',
      sessionPath,
      undefined,
      `Cannot create the lock file ${path} of session file ${sessionPath} (${errnoCode(error) ?? 'error'}); ` +
        'a writer needs a writable directory',
      { cause: error },
    );
  }
}

// Moves the judged lock aside; if what moved is not what was judged (another process replaced it meanwhile),
// it is put back, and the next attempt judges the new holder.
function takeOver(path: string, judged: string): boolean {
  const grave = `${path}.stale-${process.pid}-${randomUUID()}`;
  try {
    fs.renameSync(path, grave);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false;
    throw error;
  }
  const moved = readLockText(grave);
  if (moved === judged) {
    fs.rmSync(grave, { force: true });
    return true;
  }
  try {
    fs.linkSync(grave, path);
  } catch {
    // A third writer took the path meanwhile: its lock stands.
  }
  fs.rmSync(grave, { force: true });
  return false;
}

/**
 * Ties a held lock to the process: it is released by the returned function or, failing that, when the process
 * exits. Each lock owns its own exit listener, so nothing outside the lock tracks what is held.
 */
function releaseOnExit(path: string, nonce: string): () => void {
  let held = true;
  const release = (): void => {
    if (!held) return;
    held = false;
    process.off('exit', onExit);
    adjustExitListenerLimit(-1);
    const current = readLockText(path);
    if (current !== undefined && parseLock(current)?.nonce === nonce) fs.rmSync(path, { force: true });
  };
  const onExit = (): void => {
    try {
      release();
    } catch {
      // Exiting anyway: a lock left behind names a dead process and is taken over by the next writer.
    }
  };
  // One listener per held lock is expected, not a leak: raise the warning threshold while it is held.
  adjustExitListenerLimit(1);
  process.once('exit', onExit);
  return release;
}

function adjustExitListenerLimit(by: number): void {
  const limit = process.getMaxListeners();
  if (limit !== 0 && limit !== Number.POSITIVE_INFINITY) process.setMaxListeners(limit + by);
}

function readLockText(path: string): string | undefined {
  try {
    return fs.readFileSync(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

function parseLock(text: string): LockFile | undefined {
  try {
    const parsed = LockFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function holderState(lock: LockFile): HolderState {
  if (lock.host !== hostname()) return 'unknown';
  try {
    process.kill(lock.pid, 0);
    return 'alive';
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return errnoCode(error) === 'ESRCH' ? 'dead' : 'alive';
  }
}

function holderOf(lock: LockFile): LockHolder {
  return Object.freeze({ pid: lock.pid, host: lock.host, since: lock.since });
}

function describeHolder(lock: LockFile): string {
  return `process ${lock.pid} on ${lock.host} (since ${lock.since})`;
}
