import type { ToolBatchContext } from './types.js';

/** Calls started and not yet committed: each holds its slot from start until commit. */
export function inFlight(context: ToolBatchContext): number {
  return context.started - context.cursor;
}

/** Whether a call in flight was started exclusive: a barrier, nothing starts beside it. */
export function exclusiveInFlight(context: ToolBatchContext): boolean {
  return context.modes.slice(context.cursor, context.started).includes('exclusive');
}

/** Whether the next call may be considered for a start: lane free, a slot free, no barrier up. */
export function mayStartNext(context: ToolBatchContext): boolean {
  return (
    !context.aborted &&
    context.failure === null &&
    context.preparing === null &&
    context.started < context.calls.length &&
    inFlight(context) < context.maxParallel &&
    !exclusiveInFlight(context)
  );
}

/** Whether the next call, just classified, may start now: the pool is empty or it runs in parallel. */
export function nextFits(context: ToolBatchContext): boolean {
  return !context.aborted && (inFlight(context) === 0 || context.nextMode === 'parallel');
}

/** Whether the call at the cursor may be committed: it settled and no call holds the policy lane. */
export function canCommitCursor(context: ToolBatchContext): boolean {
  return (
    context.preparing === null && context.cursor < context.started && context.settled[context.cursor] === true
  );
}

/** The index of the call a report names (among the started, uncommitted calls), or null. */
export function callIndexOf(context: ToolBatchContext, event: unknown): number | null {
  const callId = (event as { callId?: unknown }).callId;
  for (let index = context.cursor; index < context.started; index++) {
    if (context.calls[index]?.id === callId) return index;
  }
  return null;
}

/**
 * The call-table key of a call (or, with `null`, the prefix of all of this batch's keys): unique
 * per run, turn, step and position, so no key is ever shared between batches.
 */
export function callKeyOf(
  context: Pick<ToolBatchContext, 'scopeKey' | 'turn' | 'step'>,
  index: number | null,
): string {
  const prefix = `${context.scopeKey}/t${context.turn}s${context.step}/`;
  return index === null ? prefix : `${prefix}call-${index}`;
}
