import { z } from 'zod';
import type { JsonValue, LogEvent } from '../kernel/index.js';
import { type CoreEventData, type CoreEventType, isInboxEventType } from '../kernel/index.js';
import { SessionLogError, SessionStoreError } from './errors.js';
import { isCoreEventType, resolveEventType } from './eventSchema.js';
import { NotJsonError, toFrozenJson } from './freeze.js';
import { DEFAULT_MAX_LINE_BYTES } from './limits.js';
import { memoryStore } from './stores/index.js';
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
  return new AppendOnlyLog(options);
}

const settledBarrier: Promise<void> = Promise.resolve();
const reportToConsole = (error: unknown, event: LogEvent): void =>
  console.error(`session log: a listener of ${event.type} threw`, error);

// A class, not an object literal with getters (a slow-mode dictionary in V8): one fast-mode instance
// per agent, its methods on the prototype instead of a closure each (decisions.md).
class AppendOnlyLog implements SessionLog {
  readonly #maxLineBytes: number;
  readonly #store: SessionStore;
  // `undefined` for the default clock (the cached ISO string).
  readonly #now: (() => Date) | undefined;
  // `toISOString()` is costly per append (docs/performance.md): appends in the same millisecond share one string.
  #isoMillis = Number.NaN;
  #isoText = '';
  readonly #onEvent: ((event: LogEvent) => void) | undefined;
  readonly #reportListenerError: (error: unknown, event: LogEvent) => void;
  readonly #events: LogEvent[];
  // Allocated on first use: most logs never get a subscriber or a deferred event (an agent's log does get a failure listener).
  #listeners: Set<(event: LogEvent) => void> | undefined;
  #deferred: LogEvent[] | undefined;
  #afterListeners: (() => void)[] | undefined;
  #failureListeners: ((error: SessionStoreError) => void)[] | undefined;
  #openTurn: boolean;
  #dispatching: LogEvent | undefined;
  #storeFailure: SessionStoreError | undefined;

  #currentIsoTime(): string {
    const millis = Date.now();
    if (millis !== this.#isoMillis) {
      this.#isoText = new Date(millis).toISOString();
      this.#isoMillis = millis;
    }
    return this.#isoText;
  }
  constructor(options: SessionLogOptions) {
    this.#store = options.store ?? memoryStore();
    this.#now = options.now;
    this.#onEvent = options.onEvent;
    this.#reportListenerError = options.onListenerError ?? reportToConsole;
    const events: LogEvent[] = [...this.#store.initialEvents];
    events.forEach((event, index) => {
      if (event.seq !== index) {
        throw new TypeError(
          `Expected the store's initial events to have seq 0, 1, 2, …; event ${index} has seq ${event.seq}`,
        );
      }
    });
    this.#events = events;
    this.#maxLineBytes = this.#store.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.#openTurn = findOpenTurn(events);
    this.#store.onFailure?.((error) => this.#noteStoreFailure(error));
  }

  // The live array, not a copy, so request derivation stays incremental; typed read-only.
  get events(): readonly LogEvent[] {
    return this.#events;
  }

  // Fixed when the log is built: the store's limit, not a field a caller could change.
  get maxLineBytes(): number {
    return this.#maxLineBytes;
  }

  get writesAsync(): boolean {
    return this.#store.barrier !== undefined;
  }

  get storeFailure(): SessionStoreError | undefined {
    return this.#storeFailure;
  }

  appendCore<TType extends CoreEventType>(
    type: TType,
    data: CoreEventData<TType>,
  ): LogEvent<TType, CoreEventData<TType>> {
    const resolved = resolveEventType(type);
    if (resolved.kind !== 'core') {
      throw new SessionLogError(
        'NOT_CORE_TYPE',
        `\`${type}\` is not a core event type; append plugin types with log.append(type, data)`,
      );
    }
    return this.#record(type, data, resolved.schema) as LogEvent<TType, CoreEventData<TType>>;
  }

  append(type: string, data: JsonValue): LogEvent {
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
    if (!this.#openTurn) {
      throw new SessionLogError(
        'NO_OPEN_TURN',
        `Cannot append \`${type}\` while no turn is open: plugin events are recorded inside a turn`,
      );
    }
    return this.#record(type, data, resolved.schema);
  }

  subscribe(listener: (event: LogEvent) => void): () => void {
    this.#listeners ??= new Set();
    const listeners = this.#listeners;
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }

  async flush(): Promise<void> {
    if (this.#storeFailure !== undefined) throw this.#storeFailure;
    try {
      await this.#store.flush();
    } catch (error) {
      this.#noteStoreFailure(error);
      throw error;
    }
  }

  barrier(): Promise<void> {
    if (this.#storeFailure !== undefined) return Promise.reject(this.#storeFailure);
    // A synchronous store has committed every write already: nothing to wait for.
    if (this.#store.barrier === undefined) return settledBarrier;
    return this.#store.barrier().catch((error: unknown) => {
      this.#noteStoreFailure(error);
      throw error;
    });
  }

  onStoreFailure(listener: (error: SessionStoreError) => void): void {
    this.#failureListeners ??= [];
    this.#failureListeners.push(listener);
  }

  #noteStoreFailure(error: unknown): void {
    if (this.#storeFailure !== undefined) return;
    if (!(error instanceof SessionStoreError) || error.code === 'LINE_TOO_LONG' || error.code === 'CLOSED')
      return;
    this.#storeFailure = error;
    for (const listener of this.#failureListeners?.splice(0) ?? []) listener(error);
  }

  #record(type: string, rawData: unknown, schema: z.ZodType): LogEvent {
    const storeFailure = this.#storeFailure;
    if (storeFailure !== undefined) {
      throw new SessionLogError(
        'STORE_WRITE_FAILED',
        `The store refused log event \`${type}\`: ${storeFailure.message}`,
        { cause: storeFailure },
      );
    }
    const dispatching = this.#dispatching;
    if (dispatching !== undefined && !isInboxEventType(type)) {
      throw new SessionLogError(
        'REENTRANT_APPEND',
        `Cannot append \`${type}\` while the listeners of \`${dispatching.type}\` (seq ${dispatching.seq}) are running; ` +
          'append after they return (`log.afterListeners(...)`) instead',
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
    const events = this.#events;
    const event: LogEvent = Object.freeze({
      seq: events.length,
      type,
      data,
      time: this.#now === undefined ? this.#currentIsoTime() : this.#now().toISOString(),
    });
    const line = JSON.stringify(event);
    // A UTF-16 code unit takes at most 3 UTF-8 bytes: a short line needs no byte count.
    const lineBytes = line.length * 3 <= this.#maxLineBytes ? line.length : Buffer.byteLength(line, 'utf8');
    if (lineBytes > this.#maxLineBytes) {
      throw new SessionLogError(
        'LINE_TOO_LONG',
        `Log event \`${type}\` (seq ${event.seq}) would take a line of ${lineBytes} bytes, over maxLineBytes (${this.#maxLineBytes})`,
      );
    }
    try {
      this.#store.write(event, line);
    } catch (error) {
      this.#noteStoreFailure(error);
      throw new SessionLogError(
        'STORE_WRITE_FAILED',
        `The store refused log event \`${type}\` (seq ${event.seq})`,
        {
          cause: error,
        },
      );
    }
    events.push(event);
    if (type === 'turn/start') this.#openTurn = true;
    if (type === 'turn/end') this.#openTurn = false;
    if (dispatching === undefined) this.#dispatch(event);
    else {
      this.#deferred ??= [];
      this.#deferred.push(event);
    }
    return event;
  }

  afterListeners(run: () => void): void {
    if (this.#dispatching === undefined) {
      run();
      return;
    }
    this.#afterListeners ??= [];
    this.#afterListeners.push(run);
  }

  #dispatch(first: LogEvent): void {
    for (let event: LogEvent | undefined = first; event !== undefined; event = this.#deferred?.shift()) {
      this.#dispatching = event;
      try {
        if (this.#onEvent !== undefined) this.#callContained(this.#onEvent, event);
        // A snapshot, so a listener that unsubscribes (or subscribes) mid-dispatch does not disturb this round.
        if (this.#listeners !== undefined && this.#listeners.size > 0)
          for (const listener of [...this.#listeners]) this.#callContained(listener, event);
      } finally {
        this.#dispatching = undefined;
      }
    }
    // The round is over: what waited for the listeners to return runs now (it may append and dispatch again).
    for (let run = this.#afterListeners?.shift(); run !== undefined; run = this.#afterListeners?.shift())
      run();
  }

  #callContained(listener: (event: LogEvent) => void, event: LogEvent): void {
    try {
      listener(event);
    } catch (error) {
      try {
        this.#reportListenerError(error, event);
      } catch {
        // The error sink itself failed; nothing else can be told, and the append already happened.
      }
    }
  }
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
