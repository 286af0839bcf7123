import type { LogEvent } from '../../kernel/index.js';
import { toFrozenJson } from '../freeze.js';
import type { SessionStore } from '../types.js';

export interface MemoryStoreOptions {
  /** A session id to report (memory sessions have none by default). */
  id?: string;
  /** Events to start from (seq 0, 1, 2, …), e.g. a history loaded elsewhere; copied and frozen. */
  events?: readonly LogEvent[];
}

/**
 * A store that keeps nothing beyond the log's own array: the default store. It follows the file store's rules
 * (line limit, durable-inbox events), only without a file.
 * @param options optional session id and seed events
 * @example
 * const log = createSessionLog({ store: memoryStore() });
 */
export function memoryStore(options: MemoryStoreOptions = {}): SessionStore {
  const initialEvents =
    options.events === undefined || options.events.length === 0
      ? noEvents
      : Object.freeze(options.events.map((event) => toFrozenJson(event, 'event') as unknown as LogEvent));
  return Object.freeze({
    sessionId: options.id,
    initialEvents,
    repairs: noRepairs,
    durable: false,
    write: keepNothing,
    flush: settled,
    close: settled,
  });
}

// Shared by every memory store (one per agent by default): frozen, and the functions hold no state.
const noEvents: readonly LogEvent[] = Object.freeze([]);
const noRepairs: SessionStore['repairs'] = Object.freeze([]);
const keepNothing = (): void => {};
const settled = async (): Promise<void> => {};
