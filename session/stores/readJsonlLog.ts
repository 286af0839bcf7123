import type { LogEvent } from '../../kernel/index.js';
import type { LockHolder } from '../errors.js';
import type { FileIo } from './fileIo.js';
import { planRepair, readSessionFile } from './jsonlParse.js';
import { readSessionLock } from './lock.js';

/** A session file as `seamchart log` sees it. */
export interface JsonlLog {
  readonly sessionId: string;
  /** Loaded events; for a session nobody writes, plus the synthetic repair events. */
  readonly events: readonly LogEvent[];
  /** What a crash repair would do (in memory only); empty for a live session. */
  readonly repairs: readonly string[];
  /** The writer holding the session's lock, when one is running (or cannot be ruled out): the log is live. */
  readonly writer: LockHolder | undefined;
  /** A live session's last line still being written (no newline yet): not an event yet, not repaired. */
  readonly beingWritten: { readonly line: number; readonly bytes: number } | undefined;
}

export interface ReadJsonlLogOptions {
  /** The longest line accepted (bytes, without the newline); 16 MiB when absent. */
  maxLineBytes?: number;
  /** @internal The file operations; tests wrap them to watch reads. */
  io?: FileIo;
}

/**
 * Loads a session file without locking it and without ever writing: a live session can be read while its
 * writer runs. A file nobody writes is repaired in memory only, as `openJsonlStore` would repair it.
 * @param path the session file
 * @param options line limit
 * @example
 * const { events, repairs, writer } = await readJsonlLog('session.jsonl');
 * const violations = checkInvariants(events, { open: writer !== undefined });
 */
export async function readJsonlLog(path: string, options: ReadJsonlLogOptions = {}): Promise<JsonlLog> {
  // The lock is read before and after the file: a writer that started or finished while the file was read
  // still makes it live (its last turn may be open on purpose), so nothing is "repaired" under it.
  const before = liveWriterOf(path);
  const read = await readSessionFile(path, options);
  const writer = liveWriterOf(path) ?? before;
  if (writer !== undefined) {
    const { tail } = read;
    return Object.freeze({
      sessionId: read.header.sessionId,
      events: read.events,
      repairs: Object.freeze([]),
      writer,
      beingWritten: tail === undefined ? undefined : Object.freeze({ line: tail.line, bytes: tail.bytes }),
    });
  }
  const plan = planRepair(read);
  return Object.freeze({
    sessionId: read.header.sessionId,
    events: plan.events,
    repairs: plan.repairs,
    writer: undefined,
    beingWritten: undefined,
  });
}

function liveWriterOf(path: string): LockHolder | undefined {
  const lock = readSessionLock(path);
  return lock !== undefined && lock.state !== 'dead' ? lock.holder : undefined;
}
