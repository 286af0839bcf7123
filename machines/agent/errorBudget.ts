import type { SeamLogger } from '../../seams/index.js';

/** How many `agent/error` notifications one agent sends in one turn of the event loop, at most. */
export const MAX_ERROR_REPORTS_PER_TICK = 100;

/**
 * Wraps an agent's `agent/error` reporter with a per-tick budget. A listener that reacts to
 * `agent/error` with a delivery (`inject()`) whose events make a `session/event` listener fail
 * again would otherwise report, deliver and fail in a microtask loop that never yields and never
 * ends. Past the budget a failure is only logged (the seam registry already logged each one
 * once), so the loop runs out of reactions; the budget refills on the next tick.
 */
export function createBudgetedReporter<TFailure>(
  report: (failure: TFailure) => void,
  logger: SeamLogger,
  agentId: string,
): (failure: TFailure) => void {
  let used = 0;
  let withheld = 0;
  const refill = (): void => {
    if (withheld > 0) {
      logger.error(
        `agent "${agentId}": ${withheld} failures in one tick were logged but not reported to agent/error (past ${MAX_ERROR_REPORTS_PER_TICK}); an agent/error listener's reaction keeps causing new failures`,
        { withheld },
      );
    }
    used = 0;
    withheld = 0;
  };
  return (failure) => {
    if (used === 0) setImmediate(refill).unref();
    if (used >= MAX_ERROR_REPORTS_PER_TICK) {
      withheld++;
      return;
    }
    used++;
    report(failure);
  };
}
