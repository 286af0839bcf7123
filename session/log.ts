import { z } from 'zod';
import type { JsonValue, LogEvent } from '../kernel/index.js';
import { type CoreEventData, type CoreEventType, isInboxEventType } from '../kernel/index.js';
import { SessionLogError, SessionStoreError } from './errors.js';
import { isCoreEventType, resolveEventType } from './eventSchema.js';
import { NotJsonError, toFrozenJson } from './freeze.js';
import { DEFAULT_MAX_LINE_BYTES } from './limits.js';
import { memoryStore } from './stores/memory.js';
import type { SessionLog, SessionStore } from './types.js';

export interface SessionLogOptions {
  /** Where events go; `memoryStore()` when absent. Its `initialEvents` start the log. */
  store?: SessionStore;
  /** Called after each append, before the subscribers (the agent emits `session/event` from here). */
  onEvent?: (event: LogEvent) => void;
  /** Receives what a throwing subscriber or `onEvent` threw; `console.error` when absent. */
  onListenerError?: (error: unknown, event: LogEvent) => void;
  /** Clock for `time`; `() => new Date()` when absent. */
  now?: () => Date;
}

/**
 * Creates the append-only session log of one agent.
 * @param options store, `onEvent` hook, listener-error sink and clock
 * @example
 * const log = createSessionLog({ store: await createJsonlStore('session.jsonl') });
 * log.appendCore('turn/start', { turn: 1, trigger: { kind: 'message', source: { kind: 'user' } } });
 */
export function createSessionLog(options: SessionLogOptions = {}): SessionLog {
  const store = options.store ?? memoryStore();
  const now = options.now ?? (() => new Date());
  const reportListenerError =
    options.onListenerError ??
    ((error: unknown, event: LogEvent) =>
      console.error(`session log: a listener of ${event.type} threw`, error));
  const events: LogEvent[] = [...store.initialEvents];
  events.forEach((event, index) => {
    if (event.seq !== index) {
      throw new TypeError(
        `Expected the store's initial events to have seq 0, 1, 2, …; event ${index} has seq ${event.seq}`,
      );
    }
  });
  const listeners = new Set<(event: LogEvent) => void>();
  const maxLineBytes = store.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let openTurn = findOpenTurn(events);
  let dispatching: LogEvent | undefined;
  // Inbox events written during a dispatch: on disk at once, announced when the dispatch returns.
  const deferred: LogEvent[] = [];
  let storeFailure: SessionStoreError | undefined;
  const failureListeners: ((error: SessionStoreError) => void)[] = [];
  const noteStoreFailure = (error: unknown): void => {
    if (storeFailure !== undefined) return;
    if (!(error instanceof SessionStoreError) || error.code === 'LINE_TOO_LONG' || error.code === 'CLOSED')
      return;
    storeFailure = error;
    for (const listener of failureListeners.splice(0)) listener(error);
  };

  const record = (type: string, rawData: unknown, schema: z.ZodType): LogEvent => {
    if (storeFailure !== undefined) {
      throw new SessionLogError(
        'STORE_WRITE_FAILED',
        `The store refused log event \`${type}\`: ${storeFailure.message}`,
        { cause: storeFailure },
      );
    }
    if (dispatching !== undefined && !isInboxEventType(type)) {
      throw new SessionLogError(
        'REENTRANT_APPEND',
        `Cannot append \`${type}\` while the listeners of \`${dispatching.type}\` (seq ${dispatching.seq}) are running; ` +
          'append after they return (e.g. from a queued microtask) instead',
      );
    }
    const parsed = schema.safeParse(rawData);
    if (!parsed.success) {
      throw new SessionLogError(
        'INVALID_DATA',
        `Invalid data for log event \`${type}\`: ${z.prettifyError(parsed.error)}`,
        {
          cause: parsed.error,
        },
      );
    }
    let data: JsonValue;
    try {
      data = toFrozenJson(parsed.data);
    } catch (error) {
      if (!(error instanceof NotJsonError)) throw error;
      throw new SessionLogError('INVALID_DATA', `Invalid data for log event \`${type}\`: ${error.message}`, {
        cause: error,
      });
    }
    const event: LogEvent = Object.freeze({ seq: events.length, type, data, time: now().toISOString() });
    const line = JSON.stringify(event);
    const lineBytes = Buffer.byteLength(line, 'utf8');
    if (lineBytes > maxLineBytes) {
      throw new SessionLogError(
        'LINE_TOO_LONG',
        `Log event \`${type}\` (seq ${event.seq}) would take a line of ${lineBytes} bytes, over maxLineBytes (${maxLineBytes})`,
      );
    }
    try {
      store.write(event, line);
    } catch (error) {
      noteStoreFailure(error);
      throw new SessionLogError(
        'STORE_WRITE_FAILED',
        `The store refused log event \`${type}\` (seq ${event.seq})`,
        {
          cause: error,
        },
      );
    }
    events.push(event);
    if (type === 'turn/start') openTurn = true;
    if (type === 'turn/end') openTurn = false;
    if (dispatching !== undefined) deferred.push(event);
    else dispatch(event);
    return event;
  };

  const dispatch = (first: LogEvent): void => {
    for (let event: LogEvent | undefined = first; event !== undefined; event = deferred.shift()) {
      dispatching = event;
      try {
        if (options.onEvent !== undefined) callContained(options.onEvent, event);
        // A snapshot, so a listener that unsubscribes (or subscribes) mid-dispatch does not disturb this round.
        for (const listener of [...listeners]) callContained(listener, event);
      } finally {
        dispatching = undefined;
      }
    }
  };

  const callContained = (listener: (event: LogEvent) => void, event: LogEvent): void => {
    try {
      listener(event);
    } catch (error) {
      try {
        reportListenerError(error, event);
      } catch {
        // The error sink itself failed; nothing else can be told, and the append already happened.
      }
    }
  };

  return {
    // The live array, not a copy, so request derivation stays incremental; typed read-only.
    get events() {
      return events;
    },
    appendCore<TType extends CoreEventType>(type: TType, data: CoreEventData<TType>) {
      const resolved = resolveEventType(type);
      if (resolved.kind !== 'core') {
        throw new SessionLogError(
          'NOT_CORE_TYPE',
          `\`${type}\` is not a core event type; append plugin types with log.append(type, data)`,
        );
      }
      return record(type, data, resolved.schema) as LogEvent<TType, CoreEventData<TType>>;
    },
    append(type: string, data: JsonValue) {
      if (isCoreEventType(type)) {
        throw new SessionLogError(
          'CORE_TYPE_REFUSED',
          `Cannot append \`${type}\`: core event types are written by the machines; ` +
            'define a plugin type with defineLogEvent(type, schema) for your own events',
        );
      }
      const resolved = resolveEventType(type);
      if (resolved.kind === 'unknown') {
        throw new SessionLogError(
          'UNKNOWN_TYPE',
          `Cannot append \`${type}\`: no log event type of that name is registered; call defineLogEvent(type, schema) first`,
        );
      }
      if (!openTurn) {
        throw new SessionLogError(
          'NO_OPEN_TURN',
          `Cannot append \`${type}\` while no turn is open: plugin events are recorded inside a turn`,
        );
      }
      return record(type, data, resolved.schema);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    flush: async () => {
      if (storeFailure !== undefined) throw storeFailure;
      try {
        await store.flush();
      } catch (error) {
        noteStoreFailure(error);
        throw error;
      }
    },
    maxLineBytes,
    onStoreFailure(listener) {
      failureListeners.push(listener);
    },
    get storeFailure() {
      return storeFailure;
    },
  };
}

// Open iff the last turn boundary is a `turn/start`: plugin appends are refused outside turns.
function findOpenTurn(events: readonly LogEvent[]): boolean {
  for (let index = events.length - 1; index >= 0; index--) {
    const type = events[index]?.type;
    if (type === 'turn/start') return true;
    if (type === 'turn/end') return false;
  }
  return false;
}
