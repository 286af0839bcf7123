import { assign, fromCallback, fromPromise, setup, spawnChild, stopChild } from 'xstate';
import { sendToLiveChild } from './runtime/sendToLiveChild.js';
import { callIndexOf, callKeyOf, inFlight, mayStartNext } from './toolBatch/rules.js';
import type {
  ClassifyInput,
  ClassifyOutput,
  ConcurrencyMode,
  ToolBatchContext,
  ToolBatchEvent,
  ToolBatchInput,
  ToolBatchOutput,
} from './toolBatch/types.js';
import { toolCallMachine } from './toolCall.js';

export { graphEvents } from './toolBatch/graph.js';
export { createToolBatchLogic } from './toolBatch/logic.js';

const childId = (index: number): string => `call-${index}`;
const actorIdOf = (event: unknown): string => (event as { actorId?: string }).actorId ?? '';
const errorOf = (event: unknown): unknown => (event as { error?: unknown }).error;

/**
 * The calls of one assistant step: exclusive barriers and a rolling parallel pool, one policy lane,
 * commits in model order. Un-provided: bind services with `createToolBatchLogic(services)`.
 */
export const toolBatchMachine = setup({
  types: {
    input: {} as ToolBatchInput,
    context: {} as ToolBatchContext,
    events: {} as ToolBatchEvent,
    output: {} as ToolBatchOutput,
  },
  actors: {
    toolCall: toolCallMachine,
    classify: fromPromise<ClassifyOutput, ClassifyInput>(async () => ({ mode: 'exclusive' })),
    watchScope: fromCallback<{ type: 'ABORT' }, { scopeKey: string; callKeyPrefix: string }>(() => undefined),
  },
  actions: {
    // Side effects that never throw (a failure becomes INTERNAL_ERROR); no-ops until provided.
    startCall: () => {},
    commitResult: (_, _params: { output: unknown }) => {},
    commitCrashed: () => {},
    appendAbortedPairs: () => {},
    abortStartedCalls: () => {},
    // Through the mailbox, so an INTERNAL_ERROR raised by the last commit is handled before the finish.
    requestFinish: ({ self }) => self.send({ type: 'FINISH' }),
    // Children (pure).
    spawnCall: spawnChild('toolCall', {
      id: ({ context }) => childId(context.started),
      input: ({ context }) => ({
        scopeKey: context.scopeKey,
        callKey: callKeyOf(context, context.started),
        batched: true,
        turn: context.turn,
        step: context.step,
      }),
    }),
    // Checked when it runs (decision 32): a call that died gets nothing; its error event commits it.
    sendCommit: ({ context, self }) =>
      void sendToLiveChild(self, childId(context.cursor), { type: 'COMMIT' }),
    stopCursorCall: stopChild(({ context }) => childId(context.cursor)),
    // Context updates (pure).
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
      const index = Number(/^call-(\d+)$/.exec(actorIdOf(event))?.[1] ?? Number.NaN);
      if (!(index >= context.cursor && index < context.started)) return {};
      const message = describeCrash(errorOf(event));
      return {
        crashed: context.crashed.map((c, i) => (i === index ? message : c)),
        settled: context.settled.map((s, i) => s || i === index),
        preparing: context.preparing === index ? null : context.preparing,
      };
    }),
    advanceCursor: assign({ cursor: ({ context }) => context.cursor + 1 }),
    recordMode: assign({ nextMode: (_, params: { mode: ConcurrencyMode }) => params.mode }),
    markAborted: assign({ aborted: true }),
    recordFailure: assign({
      failure: ({ event }) => (event.type === 'INTERNAL_ERROR' ? event.message : 'internal error'),
    }),
  },
  guards: {
    allCommitted: ({ context }) => context.cursor >= context.calls.length,
    cursorCrashed: ({ context }) =>
      context.cursor < context.started && context.crashed[context.cursor] !== null,
    canCommit: ({ context }) =>
      context.preparing === null &&
      context.cursor < context.started &&
      context.settled[context.cursor] === true,
    drainedAfterAbort: ({ context }) => context.aborted && context.cursor === context.started,
    mayStart: ({ context }) => mayStartNext(context),
    nextFits: ({ context }) =>
      !context.aborted && (inFlight(context) === 0 || context.nextMode === 'parallel'),
    isLive: ({ context }) => !context.aborted,
    isCursorCall: ({ context, event }) => actorIdOf(event) === childId(context.cursor),
  },
}).createMachine({
  id: 'toolBatch',
  context: ({ input }) => ({
    scopeKey: input.scopeKey,
    turn: input.turn,
    step: input.step,
    maxParallel: Math.max(1, Math.floor(input.maxParallel) || 1),
    calls: input.calls.map((call) => ({ ...call })),
    started: 0,
    cursor: 0,
    preparing: null,
    settled: input.calls.map(() => false),
    modes: [],
    crashed: input.calls.map(() => null),
    nextMode: null,
    aborted: false,
    failure: null,
  }),
  // The run's signal (a turn cancel) aborts the batch even if no ABORT event is sent.
  invoke: {
    id: 'scopeWatch',
    src: 'watchScope',
    input: ({ context }) => ({ scopeKey: context.scopeKey, callKeyPrefix: callKeyOf(context, null) }),
    onError: { actions: [] },
  },
  on: {
    PREPARED: { actions: 'markPrepared' },
    SETTLED: { actions: 'markSettled' },
    ABORT: { guard: 'isLive', actions: ['markAborted', 'abortStartedCalls'] },
    INTERNAL_ERROR: { target: '.failed', actions: 'recordFailure' },
    'xstate.error.actor.*': { actions: 'markCrashed' },
  },
  initial: 'scheduling',
  states: {
    // Commits first, as far as the cursor allows; then the next start, if the lane and a slot are free.
    scheduling: {
      always: [
        { guard: 'allCommitted', target: 'finishing' },
        { guard: 'cursorCrashed', target: 'skippingCrashed' },
        { guard: 'canCommit', target: 'committing' },
        { guard: 'drainedAfterAbort', target: 'abandoning' },
        { guard: 'mayStart', target: 'classifying' },
        { target: 'waiting' },
      ],
    },
    waiting: {
      on: {
        PREPARED: { target: 'scheduling', actions: 'markPrepared' },
        SETTLED: { target: 'scheduling', actions: 'markSettled' },
        ABORT: { guard: 'isLive', target: 'scheduling', actions: ['markAborted', 'abortStartedCalls'] },
        'xstate.error.actor.*': { target: 'scheduling', actions: 'markCrashed' },
      },
    },
    // The next call's mode is read now, so earlier calls can change it.
    classifying: {
      on: {
        ABORT: { guard: 'isLive', target: 'scheduling', actions: ['markAborted', 'abortStartedCalls'] },
      },
      invoke: {
        id: 'classify',
        src: 'classify',
        input: ({ context }) => ({ scopeKey: context.scopeKey, call: context.calls[context.started]! }),
        onDone: {
          target: 'placing',
          actions: { type: 'recordMode', params: ({ event }) => ({ mode: event.output.mode }) },
        },
        onError: { target: 'placing', actions: { type: 'recordMode', params: { mode: 'exclusive' } } },
      },
    },
    // A call at the cursor that died while the next one was classified is committed as crashed first
    // (as in `scheduling`): committing it would wait for a done event that never comes.
    placing: {
      always: [
        { guard: 'cursorCrashed', target: 'skippingCrashed' },
        { guard: 'canCommit', target: 'committing' },
        { guard: 'nextFits', target: 'starting' },
        { target: 'waiting' },
      ],
    },
    // Append `tool/call`, then spawn the call; the lane is busy until it reports PREPARED.
    starting: {
      entry: ['startCall', 'spawnCall', 'markStarted'],
      always: 'waiting',
    },
    committing: {
      entry: 'sendCommit',
      on: {
        'xstate.done.actor.*': {
          guard: 'isCursorCall',
          target: 'scheduling',
          actions: [
            {
              type: 'commitResult',
              params: ({ event }) => ({ output: (event as { output?: unknown }).output }),
            },
            'stopCursorCall',
            'advanceCursor',
          ],
        },
        'xstate.error.actor.*': { target: 'scheduling', actions: 'markCrashed' },
      },
    },
    skippingCrashed: {
      entry: ['commitCrashed', 'stopCursorCall', 'advanceCursor'],
      always: 'scheduling',
    },
    // Aborted and drained: every call never started gets a synthetic pair, in model order.
    abandoning: {
      entry: 'appendAbortedPairs',
      always: 'finishing',
    },
    finishing: {
      entry: 'requestFinish',
      on: { FINISH: 'done' },
    },
    failed: { type: 'final' },
    done: { type: 'final' },
  },
  output: ({ context }) => ({
    aborted: context.aborted,
    ...(context.failure === null ? {} : { error: context.failure }),
  }),
});

function describeCrash(error: unknown): string {
  if (error instanceof Error) return error.message;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}
