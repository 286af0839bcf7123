import type { LogEvent, Usage, UsageTotal } from '../kernel/index.js';

/** `total` plus one step's usage; optional counts appear once any step reports them. */
export function addUsage(total: UsageTotal | undefined, usage: Usage | undefined): UsageTotal | undefined {
  if (usage === undefined) return total;
  const sum: UsageTotal = {
    inputTokens: (total?.inputTokens ?? 0) + (usage.inputTokens ?? 0),
    outputTokens: (total?.outputTokens ?? 0) + (usage.outputTokens ?? 0),
  };
  const reasoning = optionalSum(total?.reasoningTokens, usage.reasoningTokens);
  const cached = optionalSum(total?.cachedInputTokens, usage.cachedInputTokens);
  if (reasoning !== undefined) sum.reasoningTokens = reasoning;
  if (cached !== undefined) sum.cachedInputTokens = cached;
  return sum;
}

function optionalSum(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
}

/** The usage of a run of `assistant/message` events (`undefined` when none reported any). */
export function sumUsage(events: readonly LogEvent[], from = 0, to = events.length): UsageTotal | undefined {
  let total: UsageTotal | undefined;
  for (let i = from; i < to; i++) {
    const event = events[i]!;
    if (event.type === 'assistant/message') total = addUsage(total, (event.data as { usage?: Usage }).usage);
  }
  return total;
}

/** The usage of the open (last) turn so far: its `assistant/message`s since the last `turn/start`. */
export function turnUsage(events: readonly LogEvent[]): UsageTotal | undefined {
  let start = events.length - 1;
  while (start >= 0 && events[start]!.type !== 'turn/start') start--;
  return start < 0 ? undefined : sumUsage(events, start);
}

/** A running session total over a growing log: each read folds only what was appended since. */
export interface UsageCounter {
  /** The total over `events` (`{ inputTokens: 0, outputTokens: 0 }` before any usage). */
  read(events: readonly LogEvent[]): UsageTotal;
}

export function createUsageCounter(): UsageCounter {
  let cursor = 0;
  let total: UsageTotal | undefined;
  return {
    read(events) {
      if (cursor < events.length) {
        total = addUsage(total, sumUsage(events, cursor));
        cursor = events.length;
      }
      return { inputTokens: 0, outputTokens: 0, ...total };
    },
  };
}
