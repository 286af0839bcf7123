import type { ToolResult } from '../kernel/index.js';
import { describeReceived } from '../kernel/index.js';
import { capDecision } from './capDecision.js';
import { createListenerFailure, SeamAbortError } from './errors.js';
import { deepFreeze, freezeContext } from './freeze.js';
import type { ListenerEntry } from './listener-entry.js';
import { type DecidingSeamName, validateResult } from './result-schemas.js';
import type { AroundNextOptions, ToolExecution, WaterfallSeamName } from './types.js';

const ignore = (): void => {};

/** Runs a policy waterfall as an onion and names the listener that authored the final decision. */
export function runWaterfall<TDecision>(
  entries: readonly ListenerEntry[],
  seam: WaterfallSeamName,
  ctx: object,
  defaultDecision: TDecision,
  signal: AbortSignal | undefined,
): Promise<{ decision: TDecision; decidedBy: string }> {
  return runOnion(entries, seam, ctx, () => defaultDecision, signal);
}

/**
 * Runs a policy onion whose bottom is computed only when the chain reaches it (`tools/approval`
 * asks its channel there); a listener passing the bottom's answer through is not re-validated.
 */
export async function runOnion<TDecision>(
  entries: readonly ListenerEntry[],
  seam: DecidingSeamName,
  ctx: object,
  bottom: () => TDecision | Promise<TDecision>,
  signal: AbortSignal | undefined,
): Promise<{ decision: TDecision; decidedBy: string }> {
  const frozen = freezeContext(ctx);
  const returned: unknown[] = [];
  let bottomDecision: TDecision | undefined;
  // Errors that came out of `next()` belong to a deeper listener: outer listeners pass them on unchanged.
  const downstreamFailures = new Set<unknown>();
  const dispatch = async (index: number): Promise<TDecision> => {
    const entry = entries[index];
    if (signal?.aborted) {
      const pending = entry ? `listener "${entry.name}"` : 'the default decision';
      throw new SeamAbortError(seam, pending, signal.reason);
    }
    if (!entry) {
      bottomDecision = deepFreeze(capDecision(await bottom()));
      return bottomDecision;
    }
    let downstream: Promise<TDecision> | undefined;
    let downstreamDecision: TDecision | undefined;
    // Policy seams run downstream once: a second `next()` gets the same promise.
    const next = (): Promise<TDecision> => {
      downstream ??= tagFailures(dispatch(index + 1), downstreamFailures).then((decision) => {
        downstreamDecision = decision;
        return decision;
      });
      return downstream;
    };
    let raw: unknown;
    try {
      raw = await entry.fn(frozen, next);
    } catch (error) {
      throw downstreamFailures.has(error) ? error : createListenerFailure(seam, entry.name, error);
    }
    // Frozen so an outer listener cannot edit a decision in place and leave its author credited.
    const decision =
      raw !== undefined && raw === downstreamDecision
        ? (raw as TDecision)
        : deepFreeze(capDecision(validateResult<TDecision>(seam, entry.name, raw)));
    returned[index] = decision;
    return decision;
  };
  const decision = await dispatch(0);
  return { decision, decidedBy: findDecider(entries, returned, decision, bottomDecision) };
}

/** Runs `tools/execute` wrappers around `core`; each `next()` dispatches again, optionally with a new signal. */
export async function runAround(
  entries: readonly ListenerEntry[],
  exec: ToolExecution,
  core: (exec: ToolExecution) => Promise<ToolResult>,
): Promise<ToolResult> {
  const downstreamFailures = new Set<unknown>();
  // No abort check between wrappers: core dispatch turns an aborted signal into ABORTED_BEFORE_DISPATCH.
  const dispatch = async (index: number, current: ToolExecution): Promise<ToolResult> => {
    const entry = entries[index];
    if (!entry) return core(current);
    const next = (options?: AroundNextOptions): Promise<ToolResult> =>
      tagFailures(dispatch(index + 1, withSignal(current, options)), downstreamFailures);
    let raw: unknown;
    try {
      raw = await entry.fn(current, next);
    } catch (error) {
      throw downstreamFailures.has(error) ? error : createListenerFailure('tools/execute', entry.name, error);
    }
    return capDecision(validateResult<ToolResult>('tools/execute', entry.name, raw));
  };
  return dispatch(0, freezeContext(exec));
}

// The override lives in a new frozen exec for this dispatch only, so the caller's exec is "restored".
function withSignal(exec: ToolExecution, options: AroundNextOptions | undefined): ToolExecution {
  const signal = options?.signal;
  if (signal === undefined) return exec;
  if (!(signal instanceof AbortSignal)) {
    throw new TypeError(
      `Expected the \`signal\` option of next() in "tools/execute" to be an AbortSignal, got ${describeReceived(signal)}`,
    );
  }
  return Object.freeze({ ...exec, signal });
}

function tagFailures<T>(promise: Promise<T>, failures: Set<unknown>): Promise<T> {
  const tagged = promise.catch((error: unknown) => {
    failures.add(error);
    throw error;
  });
  // A listener may start `next()` and never await it; that must not become an unhandled rejection.
  tagged.catch(ignore);
  return tagged;
}

function findDecider(
  entries: readonly ListenerEntry[],
  returned: readonly unknown[],
  decision: unknown,
  defaultDecision: unknown,
): string {
  if (decision === defaultDecision) return 'default';
  // Pass-throughs return the same object as the listener below them, so the innermost match is the author.
  for (let index = returned.length - 1; index >= 0; index--) {
    if (returned[index] === decision) return entries[index]?.name ?? 'default';
  }
  return 'default';
}
