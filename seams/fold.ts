import type { JsonObject, PrepareDecision } from '../kernel/index.js';
import { capDenial } from './capDecision.js';
import { createListenerFailure, SeamAbortError, SeamListenerError } from './errors.js';
import { deepFreeze } from './freeze.js';
import type { ListenerEntry } from './listener-entry.js';
import { validateResult } from './result-schemas.js';
import type { AcceptRewrite, FoldOutcome, PrepareContext, PrepareStep } from './types.js';

/**
 * Runs `tools/prepare` as a fold: listeners one after another (dispatch order), each with the input
 * as rewritten so far and every earlier step, no `next()`. A rewrite replaces the whole input once
 * `accept` has checked it, so the final input depends on listener order only, never on timing.
 * @param entries listeners in dispatch order
 * @param base the call's fields and the model's input (`original`)
 * @param accept checks and detaches one rewrite (plain JSON, the tool's parameter schema)
 * @param signal checked between listeners
 */
export async function runFold(
  entries: readonly ListenerEntry[],
  base: Omit<PrepareContext, 'arguments' | 'steps'>,
  accept: AcceptRewrite,
  signal: AbortSignal | undefined,
): Promise<FoldOutcome> {
  let current: JsonObject = base.original;
  const steps: PrepareStep[] = [];
  const failed = (error: SeamListenerError): FoldOutcome => ({
    ok: false,
    arguments: current,
    steps: deepFreeze([...steps]),
    error,
  });
  // The steps so far as listeners see them: copied again only after a rewrite added one.
  let seenSteps: readonly PrepareStep[] = Object.freeze([]);
  for (const entry of entries) {
    if (signal?.aborted) throw new SeamAbortError('tools/prepare', `listener "${entry.name}"`, signal.reason);
    if (seenSteps.length !== steps.length) seenSteps = Object.freeze([...steps]);
    // Copied, then the two keys set: no literal with a leading spread (decision 24).
    const ctx: { -readonly [K in keyof PrepareContext]: PrepareContext[K] } = { ...base } as PrepareContext;
    ctx.arguments = current;
    ctx.steps = seenSteps;
    Object.freeze(ctx);
    let raw: unknown;
    try {
      raw = await entry.fn(ctx);
    } catch (error) {
      return failed(createListenerFailure('tools/prepare', entry.name, error));
    }
    if (raw === undefined) continue;
    let decision: PrepareDecision;
    try {
      decision = validateResult<PrepareDecision>('tools/prepare', entry.name, raw);
    } catch (error) {
      return failed(error as SeamListenerError);
    }
    if (decision.kind === 'keep') continue;
    const accepted = accept(decision.arguments);
    if (!accepted.ok) {
      // The rewrite's own reason names its author when a listener stands for others (a hook bridge).
      const why = decision.reason === undefined ? '' : ` (rewrite reason: ${decision.reason})`;
      return failed(
        new SeamListenerError(
          'INVALID_REWRITE',
          'tools/prepare',
          entry.name,
          `returned ${accepted.message}${why}`,
        ),
      );
    }
    current = accepted.value;
    steps.push(
      deepFreeze({
        by: entry.name,
        ...(decision.reason === undefined ? {} : { reason: capDenial(decision.reason) }),
        arguments: current,
      }),
    );
  }
  return {
    ok: true,
    arguments: current,
    steps: deepFreeze(steps),
    decidedBy: steps.at(-1)?.by ?? 'default',
  };
}
