import type { JsonValue } from '../kernel/index.js';
import type { HookVerdict, MergedVerdict, VerdictKind } from './types.js';

const RANK: Record<VerdictKind, number> = { none: 0, allow: 1, ask: 2, block: 3 };

/**
 * Merges the verdicts of one event's hooks, given in config order: the most restrictive kind wins
 * (block > ask > allow > none), its reasons are blank-line joined, contexts and system messages are
 * kept in order, and the first `continue: false` wins. The result does not depend on finishing order.
 * @param verdicts one per hook that ran, in config order
 */
export function mergeVerdicts(verdicts: readonly HookVerdict[]): MergedVerdict {
  let kind: VerdictKind = 'none';
  for (const verdict of verdicts) if (RANK[verdict.kind] > RANK[kind]) kind = verdict.kind;
  const reasons = verdicts
    .filter((verdict) => verdict.kind === kind && RANK[kind] >= RANK.ask && verdict.reason !== undefined)
    .map((verdict) => verdict.reason as string);
  const stop = verdicts.find((verdict) => verdict.stop !== undefined)?.stop;
  const replacement = verdicts.find((verdict) => verdict.updatedToolOutput !== undefined);
  return {
    kind,
    ...(reasons.length > 0 ? { reason: reasons.join('\n\n') } : {}),
    contexts: verdicts.flatMap((verdict) => (verdict.context === undefined ? [] : [verdict.context])),
    ...(stop ? { stop } : {}),
    systemMessages: verdicts.flatMap((verdict) =>
      verdict.systemMessage === undefined ? [] : [verdict.systemMessage],
    ),
    ...(replacement ? { updatedToolOutput: replacement.updatedToolOutput as JsonValue } : {}),
    ...(verdicts.some((verdict) => verdict.interrupt === true) ? { interrupt: true } : {}),
  };
}
