import { assign, fromCallback, setup, spawnChild, stopChild } from 'xstate';
import { describeThrown } from '../../kernel/index.js';
import { sendToLiveChild } from '../runtime/sendToLiveChild.js';
import { toolCallMachine } from '../toolCall.js';
import { callIndexOf, callKeyOf, inFlight, mayStartNext } from './rules.js';
import type {
  ConcurrencyMode,
  ToolBatchContext,
  ToolBatchEvent,
  ToolBatchInput,
  ToolBatchOutput,
} from './types.js';

const childId = (index: number): string => `call-${index}`;
const actorIdOf = (event: unknown): string => (event as { actorId?: string }).actorId ?? '';
const errorOf = (event: unknown): unknown => (event as { error?: unknown }).error;

/** The toolBatch machine's implementations: types, actors, named actions, guards and delays. */
export const toolBatchSetup = setup({
  types: {
    input: {} as ToolBatchInput,
    context: {} as ToolBatchContext,
    events: {} as ToolBatchEvent,
    output: {} as ToolBatchOutput,
  },
  actors: {
    toolCall: toolCallMachine,
    watchScope: fromCallback<{ type: 'ABORT' }, { scopeKey: string; callKeyPrefix: string }>(() => undefined),
  },
  actions: {
    // Side effects that never throw (a failure becomes INTERNAL_ERROR); no-ops until provided.
    startCall: () => {},
    // Reads the next call's mode now and sends it back as `classify.done` (no-op until provided).
    classifyNext: () => {},
    recordPreparedInput: (_, _params: { report: unknown }) => {},
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
      const message = describeThrown(errorOf(event));
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
    // A classification is for the call about to start; any other is stale.
    classifiesNext: ({ context, event }) => (event as { index?: unknown }).index === context.started,
  },
});
