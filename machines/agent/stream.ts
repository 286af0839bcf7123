import type { AgentLogView, LogEvent, StreamedDelta } from '../../kernel/index.js';
import type { AgentStatus, Seams } from '../../seams/index.js';

/** One item of `agent.stream()`: a delta, a log event, a status change, or how many deltas were dropped. */
export type AgentStreamItem =
  | {
      readonly type: 'model/delta';
      readonly turn: number;
      readonly step: number;
      readonly delta: StreamedDelta;
    }
  | { readonly type: 'session/event'; readonly event: LogEvent }
  | { readonly type: 'agent/status'; readonly status: AgentStatus }
  | { readonly type: 'dropped'; readonly count: number };

/** Options of `agent.stream()`. */
export interface AgentStreamOptions {
  /** Deltas held for a slow consumer before further ones are dropped (default 1000). */
  readonly maxBufferedDeltas?: number;
}

const defaultMaxBufferedDeltas = 1000;

/** What the stream reads: the agent's seams, log and current status. */
export interface StreamSource {
  readonly agentId: string;
  readonly seams: Seams;
  readonly log: AgentLogView;
  status(): string;
}

/** A buffered notification and how long the log was when it fired (log events before it come first). */
interface Pending {
  item: AgentStreamItem;
  readonly logLength: number;
}

const endStatuses: ReadonlySet<string> = new Set(['idle', 'failed', 'disposed']);

/**
 * The agent's notifications as a bounded async iterable: log events are read through a seq cursor into
 * the log (never copied), deltas and statuses wait in a buffer of at most `maxBufferedDeltas` deltas.
 * It ends after the first idle, failed or disposed status once the agent was seen running, or on `break`.
 */
export function createAgentStream(
  source: StreamSource,
  options: AgentStreamOptions = {},
): AsyncIterableIterator<AgentStreamItem> {
  const maxDeltas = readMaxBufferedDeltas(options.maxBufferedDeltas);
  const { log } = source;
  const status = source.status();
  let seenRunning = status === 'running';
  // A running agent's open turn is shown from its turn/start, so `followup(); stream()` misses nothing.
  let cursor = seenRunning ? openTurnStart(log.events) : log.events.length;
  const buffer: Pending[] = [];
  let bufferedDeltas = 0;
  /** Set by the ending status: how far the log is read before the stream is done. */
  let endLogLength: number | undefined = endStatuses.has(status) && status !== 'idle' ? cursor : undefined;
  let finished = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };

  const push = (item: AgentStreamItem): void => {
    buffer.push({ item, logLength: log.events.length });
    notify();
  };
  const listening = endLogLength === undefined;
  const disposers = listening
    ? [
        source.seams.on(
          'model/delta',
          ({ turn, step, delta }) => {
            if (bufferedDeltas < maxDeltas) {
              bufferedDeltas++;
              push({ type: 'model/delta', turn, step, delta });
              return;
            }
            const last = buffer.at(-1);
            if (last?.item.type === 'dropped') last.item = { type: 'dropped', count: last.item.count + 1 };
            else push({ type: 'dropped', count: 1 });
          },
          { agent: source.agentId, name: 'agent.stream' },
        ),
        source.seams.on(
          'agent/status',
          ({ status: next }) => {
            push({ type: 'agent/status', status: next });
            if (next === 'running') seenRunning = true;
            else if (seenRunning && endStatuses.has(next)) stopListening(log.events.length);
          },
          { agent: source.agentId, name: 'agent.stream' },
        ),
        log.subscribe(notify),
      ]
    : [];

  function stopListening(logLength: number): void {
    endLogLength ??= logLength;
    for (const dispose of disposers.splice(0)) dispose();
    notify();
  }

  function nextItem(): AgentStreamItem | undefined {
    const head = buffer[0];
    const limit = head?.logLength ?? endLogLength ?? log.events.length;
    if (cursor < limit) return { type: 'session/event', event: log.events[cursor++]! };
    if (head === undefined) return undefined;
    buffer.shift();
    if (head.item.type === 'model/delta') bufferedDeltas--;
    return head.item;
  }

  const iterator: AsyncIterableIterator<AgentStreamItem> = {
    async next() {
      while (!finished) {
        const item = nextItem();
        if (item !== undefined) return { value: item, done: false };
        if (endLogLength !== undefined && cursor >= endLogLength) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
      finished = true;
      return { value: undefined, done: true };
    },
    async return() {
      finished = true;
      buffer.length = 0;
      stopListening(cursor);
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/** Index of the open turn's `turn/start`, or the log's end when no turn is open. */
function openTurnStart(events: readonly LogEvent[]): number {
  for (let index = events.length - 1; index >= 0; index--) {
    const type = events[index]!.type;
    if (type === 'turn/end') return events.length;
    if (type === 'turn/start') return index;
  }
  return events.length;
}

function readMaxBufferedDeltas(value: unknown): number {
  if (value === undefined) return defaultMaxBufferedDeltas;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new TypeError(
      `Expected the \`maxBufferedDeltas\` option of agent.stream() to be a positive integer, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}
