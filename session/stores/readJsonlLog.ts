import type { LogEvent } from '../../seams/types.js';
import { readSessionFile } from './jsonl.js';
import { loadSessionText } from './jsonlParse.js';

/** A session file as `seamchart log` sees it. */
export interface JsonlLog {
  readonly sessionId: string;
  /** Loaded events plus the synthetic repair events. */
  readonly events: readonly LogEvent[];
  readonly repairs: readonly string[];
}

/**
 * Loads a session file and repairs a crash in memory only; the file is never modified.
 * @param path the session file
 * @example
 * const { events, repairs } = await readJsonlLog('session.jsonl');
 * const violations = checkInvariants(events);
 */
export async function readJsonlLog(path: string): Promise<JsonlLog> {
  const loaded = loadSessionText(await readSessionFile(path), path);
  return Object.freeze({
    sessionId: loaded.header.sessionId,
    events: loaded.events,
    repairs: loaded.repairs,
  });
}
