import { assign, enqueueActions, setup } from 'xstate';
import { describeThrown } from '../../kernel/index.js';
import { servicesOfSystem, type ToolMachineServices } from '../runtime/index.js';
import { toolCallMachine } from '../toolCall.js';
import { createToolBatchActions } from './actions.js';
import { createToolBatchActors } from './actors.js';
import {
  callIndexOf,
  canCommitCursor,
  describeSuspension,
  mayStartNext,
  nextFits,
  shouldSuspend,
} from './rules.js';
import type {
  CallWait,
  ConcurrencyMode,
  ToolBatchContext,
  ToolBatchEvent,
  ToolBatchInput,
  ToolBatchOutput,
} from './types.js';

const indexOf = (event: unknown): number => (event as { index?: number }).index ?? Number.NaN;
const errorOf = (event: unknown): unknown => (event as { error?: unknown }).error;

/** The action that records each kind of `call.report`. */
const reportActions = {
  PREPARED: 'markPrepared',
  SETTLED: 'markSettled',
  PARKED: 'recordParked',
  HELD: 'recordHeld',
} as const;

/** A started call that is held: it no longer holds the policy lane. */
function markHeld(context: ToolBatchContext, event: unknown): Partial<ToolBatchContext> {
  const index = callIndexOf(context, event);
  if (index === null) return {};
  return {
    waiting: context.waiting.map((w, i): CallWait | null => (i === index ? { kind: 'held' } : w)),
    preparing: context.preparing === index ? null : context.preparing,
  };
}

/** The toolBatch machine's implementations: types, actors, named actions, guards and delays. */
export const toolBatchSetup = setup({
  types: {
    input: {} as ToolBatchInput,
    context: {} as ToolBatchContext,
    events: {} as ToolBatchEvent,
    output: {} as ToolBatchOutput,
  },
  // The scope watch, in ./actors.ts (the toolCall logic it steps is bound with the actions).
  actors: createToolBatchActors(),
  actions: {
    recordHeld: assign(({ context, event }) => markHeld(context, event)),
    recordSuspension: assign(({ context }) => ({ suspension: describeSuspension(context) })),
    // Through the mailbox, so an INTERNAL_ERROR raised by the last commit is handled before the finish.
    requestFinish: ({ self }) => self.send({ type: 'FINISH' }),
    // Context updates (pure).
    // A started call holds the policy lane until PREPARED (its guards skip the empty policy phases).
    markStarted: assign(({ context }) => ({
      preparing: context.started,
      modes: [...context.modes, context.nextMode ?? 'exclusive'],
      started: context.started + 1,
      nextMode: null,
    })),
    markPrepared: assign({
      preparing: ({ context, event }) =>
        callIndexOf(context, event) === context.preparing ? null : context.preparing,
    }),
    markSettled: assign({
      settled: ({ context, event }) => {
        const index = callIndexOf(context, event);
        return index === null ? context.settled : context.settled.map((s, i) => s || i === index);
      },
    }),
    markCrashed: assign(({ context, event }) => {
      const index = indexOf(event);
      if (!(index >= context.cursor && index < context.started)) return {};
      const message = describeThrown(errorOf(event));
      return {
        crashed: context.crashed.map((c, i) => (i === index ? message : c)),
        settled: context.settled.map((s, i) => s || i === index),
        preparing: context.preparing === index ? null : context.preparing,
      };
    }),
    advanceCursor: assign({ cursor: ({ context }) => context.cursor + 1 }),
    recordMode: assign((_, params: { mode: ConcurrencyMode }) => ({ nextMode: params.mode })),
    markAborted: assign({ aborted: true }),
    recordFailure: assign({
      failure: ({ event }) => (event.type === 'INTERNAL_ERROR' ? event.message : 'internal error'),
    }),
  },
  guards: {
    allCommitted: ({ context }) => context.cursor >= context.calls.length,
    cursorCrashed: ({ context }) =>
      context.failure === null &&
      context.cursor < context.started &&
      context.crashed[context.cursor] !== null,
    canCommit: ({ context }) => canCommitCursor(context),
    drainedAfterAbort: ({ context }) =>
      context.failure === null && context.aborted && context.cursor === context.started,
    mayStart: ({ context }) => mayStartNext(context),
    shouldSuspend: ({ context }) => shouldSuspend(context),
    nextFits: ({ context }) => nextFits(context),
    isLive: ({ context }) => !context.aborted,
    isCursorCall: ({ context, event }) => indexOf(event) === context.cursor,
    // A classification is for the call about to start; any other is stale.
    classifiesNext: ({ context, event }) => (event as { index?: unknown }).index === context.started,
  },
}).extend({
  actions: {
    // Side effects, in ./actions.ts: by default they find their services through the actor system and
    // step the toolCall machine as it is (createToolBatchLogic re-binds the same bodies to fixed
    // services). None throws: a failure becomes INTERNAL_ERROR.
    ...createToolBatchActions(servicesOfSystem<ToolMachineServices>, toolCallMachine),
    // A call's `call.report`, by its kind: the lane is free (PREPARED), it parked or is held (both free the
    // lane too), or it SETTLED.
    recordReport: enqueueActions(({ event, enqueue }) => {
      // By name, so whichever `recordParked` the logic is provided with runs.
      if (event.type === 'call.report') enqueue(reportActions[event.report] as never);
    }),
  },
});
