import type { JsonValue } from '../kernel/index.js';
import type { HookVerdict, MergedVerdict, VerdictKind } from './types.js';

const RANK: Record<VerdictKind, number> = { none: 0, allow: 1, ask: 2, block: 3 };

/**
 * Merges the verdicts of one event's hooks, given in config order: the most restrictive kind wins
 * (block > ask > allow > none), its reasons are blank-line joined, contexts and system messages are
 * kept in order, and the first `continue: false` wins. The result does not depend on finishing order.
 * @param verdicts one per hook that ran, in config order
 * @param handlerIds the handler of each verdict (what `by` and `contextBy` name)
 */
export function mergeVerdicts(
  verdicts: readonly HookVerdict[],
  handlerIds: readonly string[] = [],
): MergedVerdict {
  let kind: VerdictKind = 'none';
  for (const verdict of verdicts) if (RANK[verdict.kind] > RANK[kind]) kind = verdict.kind;
  const winners = verdicts.flatMap((verdict, index) =>
    verdict.kind === kind && kind !== 'none' ? [index] : [],
  );
  const reasons = RANK[kind] >= RANK.ask ? winners.flatMap((index) => verdicts[index]!.reason ?? []) : [];
  const by = winners.flatMap((index) => handlerIds[index] ?? []).join(', ');
  const stopAt = verdicts.findIndex((verdict) => verdict.stop !== undefined);
  const stop = verdicts[stopAt]?.stop;
  const stopBy = handlerIds[stopAt];
  const replacementAt = verdicts.findIndex((verdict) => verdict.updatedToolOutput !== undefined);
  const replacement = verdicts[replacementAt];
  const replacementBy = handlerIds[replacementAt];
  const withContext = verdicts.flatMap((verdict, index) => (verdict.context === undefined ? [] : [index]));
  return {
    kind,
    ...(reasons.length > 0 ? { reason: reasons.join('\n\n') } : {}),
    ...(by === '' ? {} : { by }),
    contexts: withContext.map((index) => verdicts[index]!.context as string),
    ...(handlerIds.length === 0 ? {} : { contextBy: withContext.map((index) => handlerIds[index] ?? '') }),
    ...(stop ? { stop: stopBy === undefined ? stop : { ...stop, by: stopBy } } : {}),
    ...(replacementBy === undefined ? {} : { updatedToolOutputBy: replacementBy }),
    systemMessages: verdicts.flatMap((verdict) =>
      verdict.systemMessage === undefined ? [] : [verdict.systemMessage],
    ),
    ...(replacement ? { updatedToolOutput: replacement.updatedToolOutput as JsonValue } : {}),
    ...(verdicts.some((verdict) => verdict.interrupt === true) ? { interrupt: true } : {}),
  };
}
