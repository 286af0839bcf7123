import type { ToolBatchContext } from './types.js';

/** Calls started and not yet committed: each holds its slot from start until commit. */
export function inFlight(context: ToolBatchContext): number {
  return context.started - context.cursor;
}

/**
 * Whether a call in flight was started exclusive: a barrier, nothing starts beside it. A parked or held
 * call is a barrier for dispatch only: later calls may still run their policy phases (approvals.md).
 */
export function exclusiveInFlight(context: ToolBatchContext): boolean {
  for (let index = context.cursor; index < context.started; index++) {
    if (context.modes[index] === 'exclusive' && !context.waiting[index]) return true;
  }
  return false;
}

/** Whether a started call is parked on a request nobody answered yet: nothing behind it is dispatched. */
export function holdsDispatch(context: ToolBatchContext): boolean {
  for (let index = context.cursor; index < context.started; index++) {
    const wait = context.waiting[index];
    if (wait?.kind === 'parked' && !wait.answered) return true;
  }
  return false;
}

/**
 * Whether the batch suspends: a call is parked unanswered, no call is in a phase (each started one is parked,
 * held or settled behind it) and nothing more may start.
 */
export function shouldSuspend(context: ToolBatchContext): boolean {
  if (context.aborted || context.failure !== null || context.preparing !== null) return false;
  if (!holdsDispatch(context)) return false;
  for (let index = context.cursor; index < context.started; index++) {
    if (!context.waiting[index] && !context.settled[index]) return false;
  }
  return !mayStartNext(context) || (context.nextMode !== null && !nextFits(context));
}

/** What `turn/suspended` lists for a batch that suspends now. */
export function describeSuspension(context: ToolBatchContext): {
  pending: string[];
  held: string[];
  notStarted: string[];
} {
  const pending: string[] = [];
  const held: string[] = [];
  for (let index = context.cursor; index < context.started; index++) {
    const wait = context.waiting[index];
    if (wait?.kind === 'parked' && !wait.answered) pending.push(wait.requestId);
    else held.push(context.calls[index]!.id);
  }
  const notStarted = context.calls.slice(context.started).map((call) => call.id);
  return { pending, held, notStarted };
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

/**
 * Whether the call at the cursor may be committed: it settled, no call holds the policy lane, and no earlier
 * result was refused (nothing is recorded after it: the turn repairs the open calls in model order).
 */
export function canCommitCursor(context: ToolBatchContext): boolean {
  return (
    context.failure === null &&
    context.preparing === null &&
    context.cursor < context.started &&
    context.settled[context.cursor] === true
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
