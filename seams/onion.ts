import type { ToolResult } from '../kernel/index.js';
import { describeReceived, isThenable } from '../kernel/index.js';
import { capDecision } from './capDecision.js';
import { createListenerFailure, SeamAbortError } from './errors.js';
import { deepFreeze, freezeContext, isDeepFrozen } from './freeze.js';
import type { ListenerEntry } from './listener-entry.js';
import { type DecidingSeamName, validateResult } from './result-schemas.js';
import type { AroundNextOptions, ToolExecution, WaterfallSeamName } from './types.js';

const ignore = (): void => {};

// A listener may start `next()` and never await it; that must not become an unhandled rejection.
function handedOn<T>(downstream: Promise<T>): Promise<T> {
  downstream.catch(ignore);
  return downstream;
}

// What a listener threw: a deeper listener's failure passes through unchanged, its own is named.
function blame(
  failures: ReadonlySet<unknown>,
  seam: Parameters<typeof createListenerFailure>[0],
  listener: string,
  error: unknown,
): unknown {
  return failures.has(error) ? error : createListenerFailure(seam, listener, error);
}

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
  // What each listener returned, by index (the bottom's answer in `bottomDecision`): a listener
  // returning exactly what its `next()` resolved to passed it through and is not validated again.
  const returned: unknown[] = [];
  let bottomDecision: TDecision | undefined;
  // Errors that came out of a dispatch belong to a deeper listener: outer listeners pass them on unchanged.
  const downstreamFailures = new Set<unknown>();
  const dispatch = async (index: number): Promise<TDecision> => {
    try {
      const entry = entries[index];
      if (signal?.aborted) {
        const pending = entry ? `listener "${entry.name}"` : 'the default decision';
        throw new SeamAbortError(seam, pending, signal.reason);
      }
      if (!entry) {
        const answer = bottom();
        bottomDecision = deepFreeze(capDecision(isThenable(answer) ? await answer : answer));
        return bottomDecision;
      }
      let downstream: Promise<TDecision> | undefined;
      // Policy seams run downstream once: a second `next()` gets the same promise.
      const next = (): Promise<TDecision> => {
        downstream ??= handedOn(dispatch(index + 1));
        return downstream;
      };
      let raw: unknown;
      try {
        raw = await entry.fn(frozen, next);
      } catch (error) {
        throw blame(downstreamFailures, seam, entry.name, error);
      }
      const below = index + 1 < entries.length ? returned[index + 1] : bottomDecision;
      // Frozen so an outer listener cannot edit a decision in place and leave its author credited.
      const decision =
        raw !== undefined && downstream !== undefined && raw === below
          ? (raw as TDecision)
          : deepFreeze(capDecision(validateResult<TDecision>(seam, entry.name, raw)));
      returned[index] = decision;
      return decision;
    } catch (error) {
      downstreamFailures.add(error);
      throw error;
    }
  };
  const decision = await dispatch(0);
  return { decision, decidedBy: findDecider(entries, returned, decision, bottomDecision) };
}

/** Runs `tools/execute` wrappers around `core`; each `next()` dispatches again, optionally with a new signal. */
export function runAround(
  entries: readonly ListenerEntry[],
  exec: ToolExecution,
  core: (exec: ToolExecution) => Promise<ToolResult>,
): Promise<ToolResult> {
  const downstreamFailures = new Set<unknown>();
  // Results that passed the schema and are deep-frozen: handed on unchanged, they are not parsed again.
  let checked: unknown[] | undefined;
  // No abort check between wrappers: core dispatch turns an aborted signal into ABORTED_BEFORE_DISPATCH.
  const dispatch = async (index: number, current: ToolExecution): Promise<ToolResult> => {
    try {
      const entry = entries[index];
      if (!entry) return await core(current);
      const next = (options?: AroundNextOptions): Promise<ToolResult> =>
        handedOn(dispatch(index + 1, withSignal(current, options)));
      let raw: unknown;
      try {
        raw = await entry.fn(current, next);
      } catch (error) {
        throw blame(downstreamFailures, 'tools/execute', entry.name, error);
      }
      if (!checked?.includes(raw)) {
        validateResult<ToolResult>('tools/execute', entry.name, raw);
        // Only a wrapper below another can have its result handed on: the outermost one is not remembered.
        if (index > 0 && isDeepFrozen(raw)) {
          checked ??= [];
          checked.push(raw);
        }
      }
      return capDecision(raw as ToolResult);
    } catch (error) {
      downstreamFailures.add(error);
      throw error;
    }
  };
  let frozen: ToolExecution;
  try {
    frozen = freezeContext(exec);
  } catch (error) {
    return Promise.reject(error);
  }
  return dispatch(0, frozen);
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
  // Copied, then the key set: `signal` keeps its place, and no literal with a leading spread (decision 24).
  const copy: { -readonly [K in keyof ToolExecution]: ToolExecution[K] } = { ...exec };
  copy.signal = signal;
  return Object.freeze(copy);
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
