import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import { copyFile, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { LogEvent } from '../../seams/types.js';
import { SessionLoadError, SessionStoreError } from '../errors.js';
import type { SessionStore } from '../types.js';
import { type JsonlHeader, loadSessionText } from './jsonlParse.js';

/** A session store backed by one JSONL file. */
export interface JsonlStore extends SessionStore {
  readonly sessionId: string;
  readonly path: string;
}

export interface CreateJsonlStoreOptions {
  /** Session id written to the header; a random UUID when absent. */
  id?: string;
  /** Working directory recorded in the header; `process.cwd()` when absent. */
  cwd?: string;
}

export interface OpenJsonlStoreOptions {
  /** The expected session id; a file with another id is refused. */
  id?: string;
}

const FILE_MODE = 0o600;

/**
 * Starts a new session file: writes the header; events are then written one line per append.
 * @param path the file to create (an existing non-empty file is refused)
 * @param options session id and recorded cwd
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
  const size = await stat(path).then(
    (stats) => stats.size,
    () => 0,
  );
  if (size > 0) {
    throw new SessionStoreError(
      'FILE_EXISTS',
      path,
      `Session file ${path} already exists and is not empty; resume it with openJsonlStore(path) instead`,
    );
  }
  const header: JsonlHeader = {
    seamchart: 1,
    sessionId: options.id ?? randomUUID(),
    created: new Date().toISOString(),
    cwd: options.cwd ?? process.cwd(),
  };
  let fd: number;
  try {
    await mkdir(dirname(path), { recursive: true });
    fd = fs.openSync(path, 'w', FILE_MODE);
    // `mode` only applies to a new file; an empty file that already existed is narrowed too.
    fs.fchmodSync(fd, FILE_MODE);
  } catch (error) {
    throw new SessionStoreError('WRITE_FAILED', path, `Cannot create session file ${path}`, { cause: error });
  }
  writeAll(fd, path, `${JSON.stringify(header)}\n`);
  fs.fsyncSync(fd);
  return createFileStore(fd, path, header.sessionId, [], []);
}

/**
 * Reopens a session file to continue it, repairing a crash first (the original is kept as `<file>.bak`).
 * @param path the session file
 * @param options the expected session id
 * @example
 * const store = await openJsonlStore('.seamchart/session.jsonl');
 * for (const line of store.repairs) console.warn(line);
 */
export async function openJsonlStore(path: string, options: OpenJsonlStoreOptions = {}): Promise<JsonlStore> {
  const text = await readSessionFile(path);
  const loaded = loadSessionText(text, path);
  const sessionId = loaded.header.sessionId;
  if (options.id !== undefined && options.id !== sessionId) {
    throw new SessionLoadError(
      'ID_MISMATCH',
      path,
      1,
      `Session file ${path} belongs to session ${JSON.stringify(sessionId)}, not ${JSON.stringify(options.id)}; ` +
        'omit `id` to resume with the file’s id',
    );
  }
  if (loaded.repairedText !== undefined) {
    await copyFile(path, `${path}.bak`);
    // Write-then-rename, so a crash during repair leaves either the original or the repaired file.
    const temporary = `${path}.repair-${process.pid}`;
    await writeFile(temporary, loaded.repairedText, { mode: FILE_MODE, flush: true });
    await rename(temporary, path);
  }
  const fd = fs.openSync(path, 'a', FILE_MODE);
  fs.fchmodSync(fd, FILE_MODE);
  return createFileStore(fd, path, sessionId, loaded.events, loaded.repairs);
}

/** Reads a session file's raw text, turning a read failure into a `SessionLoadError`. */
export async function readSessionFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new SessionLoadError('READ_FAILED', path, undefined, `Cannot read session file ${path}`, {
      cause: error,
    });
  }
}

function createFileStore(
  fd: number,
  path: string,
  sessionId: string,
  initialEvents: readonly LogEvent[],
  repairs: readonly string[],
): JsonlStore {
  let closed = false;
  const refuseClosed = (what: string) =>
    new SessionStoreError('CLOSED', path, `Cannot ${what}: session file ${path} was closed`);
  return Object.freeze({
    path,
    sessionId,
    initialEvents: Object.freeze([...initialEvents]),
    repairs: Object.freeze([...repairs]),
    write(event: LogEvent) {
      if (closed) throw refuseClosed(`write event seq ${event.seq}`);
      writeAll(fd, path, `${JSON.stringify(event)}\n`);
    },
    async flush() {
      if (closed) throw refuseClosed('flush');
      await new Promise<void>((resolve, reject) => {
        fs.fsync(fd, (error) =>
          error === null
            ? resolve()
            : reject(
                new SessionStoreError('WRITE_FAILED', path, `Cannot fsync session file ${path}`, {
                  cause: error,
                }),
              ),
        );
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve, reject) => {
        fs.fsync(fd, (syncError) => {
          fs.close(fd, (closeError) => {
            const error = syncError ?? closeError;
            if (error === null) resolve();
            else
              reject(
                new SessionStoreError('WRITE_FAILED', path, `Cannot close session file ${path}`, {
                  cause: error,
                }),
              );
          });
        });
      });
    },
  });
}

// writeSync may write less than asked (e.g. on a full disk); loop so a line is never silently cut.
function writeAll(fd: number, path: string, text: string): void {
  const buffer = Buffer.from(text, 'utf8');
  let offset = 0;
  try {
    while (offset < buffer.length) offset += fs.writeSync(fd, buffer, offset);
  } catch (error) {
    throw new SessionStoreError('WRITE_FAILED', path, `Cannot write to session file ${path}`, {
      cause: error,
    });
  }
}
