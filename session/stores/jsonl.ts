import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import type { LogEvent } from '../../kernel/index.js';
import { describeThrown } from '../../kernel/index.js';
import { SessionLoadError, SessionLockedError, SessionStoreError } from '../errors.js';
import { pendingInboxItems } from '../inbox.js';
import { DEFAULT_MAX_LINE_BYTES } from '../limits.js';
import type { SessionStore } from '../types.js';
import { errnoCode, type FileIo, fsyncDirectory, nodeFileIo } from './fileIo.js';
import {
  type JsonlHeader,
  loadFailure,
  planRepair,
  type ReadSession,
  readSessionFile,
} from './jsonlParse.js';
import { acquireSessionLock, type SessionLock } from './lock.js';

/** A session store backed by one JSONL file, holding its lock until `close()`. */
export interface JsonlStore extends SessionStore {
  readonly sessionId: string;
  readonly path: string;
  readonly maxLineBytes: number;
  /** The copy of the original file a repair on open wrote (`<file>.bak`, `.bak.1`, …); undefined when the file was not changed. */
  readonly backup: string | undefined;
}

export interface CreateJsonlStoreOptions {
  /** Session id written to the header; a random UUID when absent. */
  id?: string;
  /** Working directory recorded in the header; `process.cwd()` when absent. */
  cwd?: string;
  /** The session's tool set recorded in the header (the CLI's `--tools`), so a resume can restore it. */
  tools?: string;
  /** The longest line the store writes (bytes, without the newline); 16 MiB when absent. */
  maxLineBytes?: number;
  /** @internal The file operations; tests wrap them to inject faults. */
  io?: FileIo;
}

export interface OpenJsonlStoreOptions {
  /** The expected session id; a file with another id is refused. */
  id?: string;
  /** Take the lock even if its holder is alive, on another host, or unclear (the takeover is in `repairs`). */
  breakLock?: boolean;
  /** The longest line the store reads and writes (bytes, without the newline); 16 MiB when absent. */
  maxLineBytes?: number;
  /** `false`: a file that needs a crash repair is refused (`NEEDS_REPAIR`) and left as it is (`seamchart approve`). */
  repair?: boolean;
  /** @internal The file operations; tests wrap them to inject faults and watch reads. */
  io?: FileIo;
}

const FILE_MODE = 0o600;

/**
 * Starts a new session file: creates it exclusively, locks it, writes the header; events are then written one
 * line per append. Of two creators of one path, exactly one wins; the other gets `FILE_EXISTS`.
 * @param path the file to create (an existing non-empty file is refused)
 * @param options session id, recorded cwd and line limit
 * @example
 * const store = await createJsonlStore('.seamchart/session.jsonl', { id: 'agent-1' });
 */
export async function createJsonlStore(
  path: string,
  options: CreateJsonlStoreOptions = {},
): Promise<JsonlStore> {
  if (options.id !== undefined && (typeof options.id !== 'string' || options.id.length === 0)) {
    throw new TypeError(
      `Expected the \`id\` option to be a non-empty string, got ${JSON.stringify(options.id)}`,
    );
  }
  const maxLineBytes = resolveMaxLineBytes(options.maxLineBytes);
  const io = options.io ?? nodeFileIo;
  const header: JsonlHeader = {
    seamchart: 1,
    sessionId: options.id ?? randomUUID(),
    created: new Date().toISOString(),
    cwd: options.cwd ?? process.cwd(),
    ...(options.tools === undefined ? {} : { tools: options.tools }),
  };
  const headerLine = Buffer.from(`${JSON.stringify(header)}\n`, 'utf8');
  const { fd, lock } = createExclusively(io, path, headerLine);
  return createFileStore({
    fd,
    path,
    sessionId: header.sessionId,
    initialEvents: [],
    repairs: [],
    lock,
    io,
    size: headerLine.length,
    maxLineBytes,
    backup: undefined,
  });
}

/**
 * Reopens a session file to continue it: takes its lock, then loads it (streaming) and repairs a crash. The
 * repair keeps every untouched line byte for byte and the file's mode, and copies the original to a new
 * backup first (`<file>.bak`, then `<file>.bak.1`, …).
 * @param path the session file
 * @param options the expected session id, lock breaking and line limit
 * @example
 * const store = await openJsonlStore('.seamchart/session.jsonl');
 * for (const line of store.repairs) console.warn(line);
 */
export async function openJsonlStore(path: string, options: OpenJsonlStoreOptions = {}): Promise<JsonlStore> {
  const maxLineBytes = resolveMaxLineBytes(options.maxLineBytes);
  const io = options.io ?? nodeFileIo;
  // Whether the file is there is asked before the lock, so a wrong path leaves no lock file behind.
  try {
    fs.statSync(path);
  } catch (error) {
    throw loadFailure(path, error, 'open');
  }
  const lock = acquireSessionLock(path, options.breakLock === true ? { breakLock: true } : {});
  try {
    const read = await readSessionFile(path, { maxLineBytes, io });
    const sessionId = read.header.sessionId;
    if (options.id !== undefined && options.id !== sessionId) {
      throw new SessionLoadError(
        'ID_MISMATCH',
        path,
        1,
        `Session file ${path} belongs to session ${JSON.stringify(sessionId)}, not ${JSON.stringify(options.id)}; ` +
          'omit `id` to resume with the file’s id',
      );
    }
    const plan = planRepair(read);
    if (plan.append !== undefined && options.repair === false)
      throw new SessionLoadError(
        'NEEDS_REPAIR',
        path,
        undefined,
        `Session file ${path} needs a crash repair (${plan.repairs.join('; ')}); it was not modified`,
      );
    const backup =
      plan.append === undefined ? undefined : applyRepair(io, path, read, plan.keepBytes, plan.append);
    if (backup === undefined)
      refuseReadOnly(path, read, 'is read-only; a session to continue must be writable');
    let fd: number;
    try {
      // r+, not a: writes are positional at the known end, so a failed one can be cut back exactly.
      fd = io.openSync(path, 'r+');
    } catch (error) {
      throw loadFailure(path, error, 'open for appending');
    }
    return createFileStore({
      fd,
      path,
      sessionId,
      initialEvents: plan.events,
      repairs: [
        ...lock.repairs,
        ...plan.repairs,
        ...pendingInboxItems(plan.events).map(
          ({ accepted, why }) => `inbox: ${accepted.id} is re-queued on resume (${why})`,
        ),
      ],
      lock,
      io,
      size: io.fstatSync(fd).size,
      maxLineBytes,
      backup,
    });
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** The backups `openJsonlStore` would write next: `<file>.bak`, `<file>.bak.1`, … (never overwritten). */
function backupPath(path: string, index: number): string {
  return index === 0 ? `${path}.bak` : `${path}.bak.${index}`;
}

/** Writes the repair in place after copying the original to a new backup; returns the backup's path. */
function applyRepair(io: FileIo, path: string, read: ReadSession, keepBytes: number, append: string): string {
  refuseReadOnly(path, read, 'needs repair but is read-only');
  const fail = (what: string, error: unknown) =>
    new SessionLoadError(
      errnoCode(error) === 'EACCES' || errnoCode(error) === 'EPERM' ? 'PERMISSION_DENIED' : 'REPAIR_FAILED',
      path,
      undefined,
      `Cannot repair session file ${path}: ${what} failed (${errnoCode(error) ?? describeThrown(error)}); the file was not modified`,
      { cause: error },
    );
  let backup: string | undefined;
  for (let index = 0; backup === undefined; index++) {
    const candidate = backupPath(path, index);
    try {
      fs.copyFileSync(path, candidate, fs.constants.COPYFILE_EXCL);
      fs.chmodSync(candidate, read.mode);
      const fd = io.openSync(candidate, 'r');
      try {
        io.fsyncSync(fd);
      } finally {
        io.closeSync(fd);
      }
      backup = candidate;
    } catch (error) {
      if (errnoCode(error) === 'EEXIST') continue;
      throw fail(`copying it to ${candidate}`, error);
    }
  }
  fsyncDirectory(io, dirname(path));
  // In place: the kept bytes are never rewritten, the inode (and so the mode) stays; a crash midway leaves an
  // unterminated tail that the next open repairs again, with the original safe in the backup.
  let fd: number;
  try {
    fd = io.openSync(path, 'r+');
  } catch (error) {
    throw fail('opening it for writing', error);
  }
  try {
    io.ftruncateSync(fd, keepBytes);
    writeAll(io, fd, Buffer.from(append, 'utf8'), keepBytes);
    io.fsyncSync(fd);
  } catch (error) {
    throw new SessionLoadError(
      'REPAIR_FAILED',
      path,
      undefined,
      `Cannot repair session file ${path}: writing the repair failed (${errnoCode(error) ?? describeThrown(error)}); ` +
        `the original is in ${backup}`,
      { cause: error },
    );
  } finally {
    io.closeSync(fd);
  }
  return backup;
}

// Mode bits decide, not access(): a process with the power to write anyway (root) must still respect them.
function refuseReadOnly(path: string, read: ReadSession, what: string): void {
  if ((read.mode & 0o222) !== 0) return;
  throw new SessionLoadError(
    'READ_ONLY',
    path,
    undefined,
    `Session file ${path} ${what} (mode ${read.mode.toString(8).padStart(4, '0')}); ` +
      `make it writable (chmod u+w ${path}) to continue it, or read it without changes with readJsonlLog / seamchart log`,
  );
}

// The header is written to a staging file first and hard-linked into place: link() is the exclusive create
// (of racing creators exactly one succeeds), and the session file never exists without its header.
function createExclusively(io: FileIo, path: string, headerLine: Buffer): { fd: number; lock: SessionLock } {
  const staging = `${path}.create-${randomUUID()}`;
  let fd: number;
  try {
    fs.mkdirSync(dirname(path), { recursive: true });
    fd = io.openSync(staging, 'wx', FILE_MODE);
  } catch (error) {
    throw new SessionStoreError('CREATE_FAILED', path, `Cannot create session file ${path}`, {
      cause: error,
    });
  }
  let lock: SessionLock | undefined;
  try {
    // `mode` is narrowed by the umask; the file is the user's alone whatever it is.
    fs.fchmodSync(fd, FILE_MODE);
    writeAll(io, fd, headerLine, 0);
    io.fsyncSync(fd);
    if (linkInto(staging, path)) {
      lock = acquireSessionLock(path);
    } else {
      // It exists: only an empty file may become the session, replaced under the lock.
      if (sizeOf(path) > 0) throw fileExists(path);
      lock = acquireSessionLock(path);
      if (sizeOf(path) > 0) throw fileExists(path);
      fs.renameSync(staging, path);
    }
    fsyncDirectory(io, dirname(path));
    return { fd, lock };
  } catch (error) {
    io.closeSync(fd);
    lock?.release();
    if (
      error instanceof SessionStoreError ||
      error instanceof SessionLoadError ||
      error instanceof SessionLockedError
    )
      throw error;
    throw new SessionStoreError('CREATE_FAILED', path, `Cannot create session file ${path}`, {
      cause: error,
    });
  } finally {
    fs.rmSync(staging, { force: true });
  }
}

function linkInto(staging: string, path: string): boolean {
  try {
    fs.linkSync(staging, path);
    return true;
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false;
    throw error;
  }
}

function sizeOf(path: string): number {
  return fs.statSync(path, { throwIfNoEntry: false })?.size ?? 0;
}

function fileExists(path: string): SessionStoreError {
  return new SessionStoreError(
    'FILE_EXISTS',
    path,
    `Session file ${path} already exists and is not empty; resume it with openJsonlStore(path) instead`,
  );
}

function resolveMaxLineBytes(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_LINE_BYTES;
  if (!Number.isInteger(value) || value < 1024) {
    throw new TypeError(`Expected \`maxLineBytes\` to be an integer of at least 1024, got ${String(value)}`);
  }
  return value;
}

interface FileStoreParts {
  readonly fd: number;
  readonly path: string;
  readonly sessionId: string;
  readonly initialEvents: readonly LogEvent[];
  readonly repairs: readonly string[];
  readonly lock: SessionLock;
  readonly io: FileIo;
  /** Bytes in the file: where the next line starts, and where a failed write is cut back to. */
  readonly size: number;
  readonly maxLineBytes: number;
  readonly backup: string | undefined;
}

function createFileStore(parts: FileStoreParts): JsonlStore {
  const { fd, path, lock, io, maxLineBytes } = parts;
  let size = parts.size;
  let closed = false;
  let failure: SessionStoreError | undefined;
  const refuseClosed = (what: string) =>
    new SessionStoreError('CLOSED', path, `Cannot ${what}: session file ${path} was closed`);
  const latch = (error: SessionStoreError): SessionStoreError => {
    failure = error;
    return error;
  };
  return Object.freeze({
    path,
    sessionId: parts.sessionId,
    maxLineBytes,
    backup: parts.backup,
    durable: true,
    initialEvents: Object.freeze([...parts.initialEvents]),
    repairs: Object.freeze([...parts.repairs]),
    get failure() {
      return failure;
    },
    write(event: LogEvent, line: string = JSON.stringify(event)) {
      if (failure !== undefined) throw failure;
      if (closed) throw refuseClosed(`write event seq ${event.seq}`);
      const bytes = Buffer.from(`${line}\n`, 'utf8');
      if (bytes.length - 1 > maxLineBytes) {
        throw new SessionStoreError(
          'LINE_TOO_LONG',
          path,
          `Cannot write event seq ${event.seq} (${event.type}): its line of ${bytes.length - 1} bytes exceeds maxLineBytes (${maxLineBytes})`,
        );
      }
      try {
        writeAll(io, fd, bytes, size);
      } catch (error) {
        // All or nothing: cut the partial line back off, so the file ends at the last complete line.
        let undone = true;
        try {
          io.ftruncateSync(fd, size);
        } catch {
          undone = false;
        }
        throw latch(
          new SessionStoreError(
            'WRITE_FAILED',
            path,
            `Cannot write event seq ${event.seq} (${event.type}) to session file ${path} ` +
              `(${errnoCode(error) ?? describeThrown(error)}); ${undone ? 'the partial line was removed' : 'the partial line could not be removed (reopening drops it)'} ` +
              'and the store accepts no further writes',
            { cause: error },
          ),
        );
      }
      size += bytes.length;
    },
    async flush() {
      if (failure !== undefined) throw failure;
      if (closed) throw refuseClosed('flush');
      try {
        await io.fsync(fd);
      } catch (error) {
        throw latch(
          new SessionStoreError(
            'FSYNC_FAILED',
            path,
            `Cannot fsync session file ${path} (${errnoCode(error) ?? describeThrown(error)}); the store accepts no further writes`,
            { cause: error },
          ),
        );
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      let error: unknown;
      try {
        if (failure === undefined) await io.fsync(fd);
      } catch (syncError) {
        error = syncError;
      }
      try {
        io.closeSync(fd);
      } catch (closeError) {
        error ??= closeError;
      }
      lock.release();
      if (error !== undefined) {
        throw new SessionStoreError('FSYNC_FAILED', path, `Cannot close session file ${path}`, {
          cause: error,
        });
      }
    },
  });
}

// writeSync may write less than asked (e.g. on a full disk); loop so a line is never silently cut.
function writeAll(io: FileIo, fd: number, buffer: Buffer, position: number): void {
  let offset = 0;
  while (offset < buffer.length) {
    const written = io.writeSync(fd, buffer, offset, buffer.length - offset, position + offset);
    if (written <= 0) throw Object.assign(new Error('write returned no progress'), { code: 'EIO' });
    offset += written;
  }
}
