// Temporary session files for the store tests: one directory per test file, removed after it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { LogEvent } from '../../../kernel/index.js';

/** A session file's header line, as `createJsonlStore` writes it. */
export const header = (sessionId = 'sess-1') =>
  JSON.stringify({ seamchart: 1, sessionId, created: '2025-01-01T00:00:00.000Z', cwd: '/work' });

/** One event as a JSONL line. */
export const lineOf = (event: LogEvent) => JSON.stringify(event);

/** The error a promise rejects with; throws when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

/**
 * A temporary directory for this test file (call at module level: it registers its removal with
 * `afterAll`), fresh paths in it, and session files written exactly as given.
 * @param prefix the directory name's prefix, e.g. `seamchart-storage-`
 */
export function sessionFiles(prefix: string) {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  let files = 0;
  const freshPath = () => join(directory, `session-${++files}.jsonl`);
  /** Writes a header and then `body` (text, or lines joined by newlines) to a fresh path. */
  const writeSession = (body: string | readonly string[], sessionId?: string): string => {
    const path = freshPath();
    writeFileSync(path, `${header(sessionId)}\n${typeof body === 'string' ? body : body.join('\n')}`);
    return path;
  };
  return { directory, freshPath, writeSession };
}
