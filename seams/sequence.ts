import type { ContinuationStop } from '../kernel/index.js';
import { describeValue, isThenable } from '../kernel/index.js';
import { capDecision, capDenial } from './capDecision.js';
import { createListenerFailure, SeamListenerError } from './errors.js';
import type { ListenerEntry, ReportFailure } from './listener-entry.js';
import { validateResult } from './result-schemas.js';
import type { DispatchScope, SeamName, ToolExecution } from './types.js';

/** Awaits each listener in order; the first throw rejects with `SeamListenerError`. */
export async function runSerial(
  entries: readonly ListenerEntry[],
  seam: SeamName,
  ctx: object,
): Promise<void> {
  for (const entry of entries) {
    try {
      await entry.fn(ctx);
    } catch (error) {
      throw createListenerFailure(seam, entry.name, error);
    }
  }
}

/** Awaits listeners in order until one returns a validated `ContinuationStop`. */
export async function runFirstResult(
  entries: readonly ListenerEntry[],
  ctx: object,
): Promise<{ decision: ContinuationStop | undefined; decidedBy: string }> {
  for (const entry of entries) {
    let raw: unknown;
    try {
      raw = await entry.fn(ctx);
    } catch (error) {
      throw createListenerFailure('agent/turn-stop', entry.name, error);
    }
    if (raw !== undefined) {
      return {
        decision: capDecision(validateResult<ContinuationStop>('agent/turn-stop', entry.name, raw)),
        decidedBy: entry.name,
      };
    }
  }
  return { decision: undefined, decidedBy: 'default' };
}

/** Awaits every listener in order; failures are reported, never thrown. */
export async function runAwaitedNotify(
  entries: readonly ListenerEntry[],
  seam: SeamName,
  ctx: object,
  report: ReportFailure,
  scope: DispatchScope,
): Promise<void> {
  for (const entry of entries) {
    scope.onListenerStart?.(entry.name);
    try {
      await entry.fn(ctx);
    } catch (error) {
      report(seam, entry.name, error, scope);
    }
  }
  scope.onListenerStart?.(undefined);
}

/** Calls every listener synchronously; a throw or a later rejection is reported, never thrown. */
export function runNotify(
  entries: readonly ListenerEntry[],
  seam: SeamName,
  payload: object,
  report: ReportFailure,
  scope: DispatchScope | undefined,
): void {
  for (const entry of entries) {
    try {
      const returned = entry.fn(payload);
      if (isThenable(returned)) {
        returned.then(undefined, (error: unknown) => report(seam, entry.name, error, scope));
      }
    } catch (error) {
      report(seam, entry.name, error, scope);
    }
  }
}

/** Runs guards in order; the first string is a denial. A throw or a non-string result throws. */
export function runGuards(
  entries: readonly ListenerEntry[],
  exec: ToolExecution,
): { denied: string; by: string } | undefined {
  for (const entry of entries) {
    let verdict: unknown;
    try {
      verdict = entry.fn(exec);
    } catch (error) {
      throw createListenerFailure('guard', entry.name, error);
    }
    if (typeof verdict === 'string') return { denied: capDenial(verdict), by: entry.name };
    if (verdict !== undefined) {
      // An async guard would deny too late to matter; say so instead of treating the promise as "allow".
      const isAsync = isThenable(verdict);
      if (isThenable(verdict)) verdict.then(undefined, () => {});
      const why = isAsync ? '; guards are synchronous, compute the verdict before the call' : '';
      throw new SeamListenerError(
        'GUARD_FAILED',
        'guard',
        entry.name,
        `returned ${describeValue(verdict)}, expected a denial reason (string) or undefined${why}`,
      );
    }
  }
  return undefined;
}
