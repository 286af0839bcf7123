import { callKeyOf } from './toolBatch/rules.js';
import { toolBatchSetup } from './toolBatch/setup.js';
import type { ToolBatchInput } from './toolBatch/types.js';

export { graphEvents } from './toolBatch/graph.js';

/**
 * The calls of one assistant step: exclusive barriers and a rolling parallel pool, one policy lane,
 * commits in model order. No call is an actor: each is its toolCall machine, stepped inside the batch
 * (`starting`, `committing`, `call.done`); its guards skip its empty phases. Its implementations find their services through the actor system; `createToolBatchLogic(services)` binds fixed ones.
 */
export const toolBatchMachine = toolBatchSetup.createMachine({
  id: 'toolBatch',
  // A batch whose input names no run scope opens its own, keyed by its session id (unique per system).
  context: ({ input, self }) => ({
    parent: input.parent ?? null,
    scopeKey: input.scopeKey ?? `${self.sessionId}:scope`,
    ownsScope: input.scopeKey === undefined,
    turn: input.turn,
    step: input.step,
    maxParallel: Math.max(1, Math.floor(input.maxParallel) || 1),
    calls: input.calls.map((call) => ({ ...call })),
    // A resumed step starts after the calls it already committed (a prefix: commits are in model order).
    started: committedPrefix(input),
    cursor: committedPrefix(input),
    preparing: null,
    settled: input.calls.map(() => false),
    modes: [],
    crashed: input.calls.map(() => null),
    nextMode: null,
    aborted: input.resume?.aborted ?? false,
    failure: null,
    waiting: input.calls.map(() => null),
    resume: input.resume ? [...input.resume.slots] : null,
    suspension: null,
  }),
  // The run's signal (a turn cancel) aborts the batch even if no ABORT event is sent.
  invoke: {
    id: 'scopeWatch',
    src: 'watchScope',
    input: ({ context }) => ({
      scopeKey: context.scopeKey,
      callKeyPrefix: callKeyOf(context, null),
      ownsScope: context.ownsScope,
    }),
    onError: { actions: [] },
  },
  on: {
    // A call's input once `tools/prepare` is done: `tool/call` records what will run.
    PREPARED_INPUT: { actions: { type: 'recordPreparedInput', params: ({ event }) => ({ report: event }) } },
    // A call freed the lane (PREPARED, or PARKED/HELD for a resume), or SETTLED: recorded in any state.
    'call.report': { actions: 'recordReport' },
    ABORT: { guard: 'isLive', actions: ['markAborted', 'abortStartedCalls'] },
    INTERNAL_ERROR: { target: '.failed', actions: 'recordFailure' },
    'call.error': { actions: 'markCrashed' },
  },
  // A batch with no run scope opens its own; a stopped actor runs no exit action: its stop is watched from the start.
  entry: ['openScope', 'releaseOnStop'],
  initial: 'scheduling',
  states: {
    // Starts first, while the lane and a slot are free; then commits, as far as the cursor allows. So
    // starts and commits alternate by count alone, never by how long a call took (engine.md, contract 3).
    scheduling: {
      always: [
        { guard: 'allCommitted', target: 'finishing' },
        { guard: 'cursorCrashed', target: 'skippingCrashed' },
        { guard: 'mayStart', target: 'classifying' },
        { guard: 'canCommit', target: 'committing' },
        { guard: 'drainedAfterAbort', target: 'abandoning' },
        { guard: 'shouldSuspend', target: 'suspending' },
        { target: 'waiting' },
      ],
    },
    waiting: {
      on: {
        // A report, recorded as in any state, then the next schedule.
        'call.report': { target: 'scheduling', actions: 'recordReport' },
        ABORT: {
          guard: 'isLive',
          target: 'scheduling',
          actions: ['markAborted', 'abortStartedCalls'],
        },
        'call.error': { target: 'scheduling', actions: 'markCrashed' },
      },
    },
    // The next call's mode is read now, so earlier calls can change it.
    classifying: {
      entry: 'classifyNext',
      on: {
        ABORT: {
          guard: 'isLive',
          target: 'scheduling',
          actions: ['markAborted', 'abortStartedCalls'],
        },
        'classify.done': {
          guard: 'classifiesNext',
          target: 'placing',
          actions: { type: 'recordMode', params: ({ event }) => event.output },
        },
        'classify.error': {
          guard: 'classifiesNext',
          target: 'placing',
          actions: { type: 'recordMode', params: { mode: 'exclusive' } },
        },
      },
    },
    // A call at the cursor that died while the next one was classified is committed as crashed first
    // (as in `scheduling`): committing it would wait for a done event that never comes.
    placing: {
      always: [
        { guard: 'cursorCrashed', target: 'skippingCrashed' },
        { guard: 'nextFits', target: 'starting' },
        { guard: 'canCommit', target: 'committing' },
        { guard: 'shouldSuspend', target: 'suspending' },
        { target: 'waiting' },
      ],
    },
    // Open the call and start its machine; the lane is busy until it reports PREPARED (after prepare and policy).
    starting: {
      entry: ['startCall', 'startSteppedCall', 'markStarted'],
      always: 'waiting',
    },
    // The cursor call reviews now, in model order; its result is recorded once its machine is done.
    committing: {
      entry: 'commitSteppedCall',
      on: {
        'call.done': {
          guard: 'isCursorCall',
          target: 'scheduling',
          actions: [
            { type: 'commitResult', params: ({ event }) => ({ output: event.output }) },
            'advanceCursor',
          ],
        },
        'call.error': { target: 'scheduling', actions: 'markCrashed' },
      },
    },
    skippingCrashed: {
      entry: ['commitCrashed', 'advanceCursor'],
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
    // Every call left waits for an answer: the turn suspends; the log has all a resume needs (approvals.md).
    suspending: {
      entry: ['recordSuspension', 'releaseWaitingCalls'],
      always: 'suspended',
    },
    suspended: { type: 'final' },
    failed: { type: 'final' },
    done: { type: 'final' },
  },
  output: ({ context }) => ({
    aborted: context.aborted,
    ...(context.failure === null ? {} : { error: context.failure }),
    ...(context.suspension === null ? {} : { suspended: context.suspension }),
  }),
});

function committedPrefix(input: ToolBatchInput): number {
  const slots = input.resume?.slots ?? [];
  let count = 0;
  while (slots[count]?.kind === 'committed') count++;
  return count;
}
