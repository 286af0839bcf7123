import type { LogEvent } from '../seams/types.js';
import type { CoreEventData } from '../session/events.js';
import type { ModelMessage } from './types.js';

/** Derives model messages from a growing log, reusing earlier work. */
export interface RequestDeriver {
  /**
   * The messages of `events`, in log order. Only events appended since the previous call are processed;
   * the result is a frozen array whose earlier message objects are the previous result's.
   */
  derive(events: readonly LogEvent[]): readonly ModelMessage[];
}

/**
 * Creates an incremental model-request deriver for one log: each `derive` costs what was appended since.
 * A log that is not an extension of the previous one (another log, or a rewritten one) is derived afresh.
 * @example
 * const deriver = createRequestDeriver();
 * const request = { messages: deriver.derive(log.events), tools, signal };
 */
export function createRequestDeriver(): RequestDeriver {
  let cursor = 0;
  let lastEvent: LogEvent | undefined;
  let messages: readonly ModelMessage[] = Object.freeze([]);
  return {
    derive(events) {
      // Identity of the last processed event tells an extension of the same log from a different log.
      if (events.length < cursor || (cursor > 0 && events[cursor - 1] !== lastEvent)) {
        cursor = 0;
        lastEvent = undefined;
        messages = Object.freeze([]);
      }
      const added: ModelMessage[] = [];
      for (let index = cursor; index < events.length; index++) {
        const message = toModelMessage(events[index] as LogEvent);
        if (message !== undefined) added.push(message);
      }
      cursor = events.length;
      lastEvent = events[cursor - 1];
      if (added.length > 0) messages = Object.freeze([...messages, ...added]);
      return messages;
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
