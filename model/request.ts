import type { CoreEventData, LogEvent } from '../kernel/index.js';
import type { ModelMessage } from './types.js';

/** Derives model messages from a growing log, reusing earlier work. */
export interface RequestDeriver {
  /**
   * The messages of `events`, in log order. Only events appended since the previous call are processed;
   * the result is a read-only snapshot (writes throw) whose earlier message objects are the previous result's.
   */
  derive(events: readonly LogEvent[]): readonly ModelMessage[];
}

/**
 * Creates an incremental model-request deriver for one log: each `derive` costs what was appended since,
 * never a copy of the history (results are fixed-length read-only views of one append-only array).
 * A log that is not an extension of the previous one (another log, or a rewritten one) is derived afresh.
 * @example
 * const deriver = createRequestDeriver();
 * const request = { messages: deriver.derive(log.events), tools, signal };
 */
export function createRequestDeriver(): RequestDeriver {
  let cursor = 0;
  let lastEvent: LogEvent | undefined;
  // Only ever appended to, so every earlier snapshot keeps seeing exactly its own prefix.
  let backing: ModelMessage[] = [];
  let snapshot: readonly ModelMessage[] = snapshotOf(backing, 0);
  return {
    derive(events) {
      // Identity of the last processed event tells an extension of the same log from a different log.
      if (events.length < cursor || (cursor > 0 && events[cursor - 1] !== lastEvent)) {
        cursor = 0;
        lastEvent = undefined;
        backing = [];
        snapshot = snapshotOf(backing, 0);
      }
      const before = backing.length;
      for (let index = cursor; index < events.length; index++) {
        const message = toModelMessage(events[index] as LogEvent);
        if (message !== undefined) backing.push(message);
      }
      cursor = events.length;
      lastEvent = events[cursor - 1];
      if (backing.length > before) snapshot = snapshotOf(backing, backing.length);
      return snapshot;
    },
  };
}

/**
 * The model messages of a whole log (one-shot; use `createRequestDeriver` when the log keeps growing).
 * @param events the session log's events
 */
export function deriveMessages(events: readonly LogEvent[]): readonly ModelMessage[] {
  return createRequestDeriver().derive(events);
}

/** A read-only view of the first `length` messages of an append-only array: an O(1) snapshot. */
function snapshotOf(backing: ModelMessage[], length: number): readonly ModelMessage[] {
  return new Proxy(backing, new PrefixView(length));
}

// A canonical array index ("0", "17"), the only keys whose visibility depends on the snapshot's length.
function indexOf(key: string | symbol): number | undefined {
  if (typeof key !== 'string') return undefined;
  const index = Number(key);
  return Number.isInteger(index) && index >= 0 && String(index) === key ? index : undefined;
}

class PrefixView implements ProxyHandler<ModelMessage[]> {
  constructor(private readonly length: number) {}

  get(target: ModelMessage[], key: string | symbol, receiver: unknown): unknown {
    if (key === 'length') return this.length;
    const index = indexOf(key);
    if (index !== undefined) return index < this.length ? target[index] : undefined;
    return Reflect.get(target, key, receiver);
  }

  has(target: ModelMessage[], key: string | symbol): boolean {
    const index = indexOf(key);
    return index !== undefined ? index < this.length : Reflect.has(target, key);
  }

  ownKeys(target: ModelMessage[]): (string | symbol)[] {
    return Reflect.ownKeys(target).filter((key) => {
      const index = indexOf(key);
      return index === undefined || index < this.length;
    });
  }

  getOwnPropertyDescriptor(target: ModelMessage[], key: string | symbol): PropertyDescriptor | undefined {
    if (key === 'length')
      return { value: this.length, writable: true, enumerable: false, configurable: false };
    const index = indexOf(key);
    if (index !== undefined && index >= this.length) return undefined;
    return Reflect.getOwnPropertyDescriptor(target, key);
  }

  // Read-only: every write is refused, which strict-mode code sees as a TypeError.
  set(): boolean {
    return false;
  }
  defineProperty(): boolean {
    return false;
  }
  deleteProperty(): boolean {
    return false;
  }
  setPrototypeOf(): boolean {
    return false;
  }
  preventExtensions(): boolean {
    return false;
  }
}

// Core events were validated on append, so their data is trusted here (this runs on every request).
function toModelMessage(event: LogEvent): ModelMessage | undefined {
  switch (event.type) {
    case 'user/message':
    case 'context/message':
    case 'steering/message': {
      const { content } = event.data as CoreEventData<'user/message'>;
      return Object.freeze({ role: 'user', content });
    }
    case 'assistant/message': {
      const { content } = event.data as CoreEventData<'assistant/message'>;
      return Object.freeze({ role: 'assistant', content });
    }
    case 'tool/result': {
      const { callId, content, isError } = event.data as CoreEventData<'tool/result'>;
      return Object.freeze({ role: 'tool', callId, content, isError });
    }
    default:
      // prompt/blocked, turn/step bookkeeping and plugin events are never model-visible.
      return undefined;
  }
}
