import { assign, fromCallback, fromPromise, setup } from 'xstate';
import { createFailureResult, withContexts } from '../tools/index.js';
import {
  abandonReview,
  assembleResult,
  createAbortedBeforeDispatch,
  createDidNotStop,
  createPipelineError,
} from './toolCallRules.js';
import type {
  ApprovalOutput,
  DispatchOutput,
  FinalizeOutput,
  GuardsOutput,
  PostExecuteInput,
  PostExecuteOutput,
  PreExecuteOutput,
  SealOutcome,
  SealOutput,
  ToolCallActorInput,
  ToolCallContext,
  ToolCallEvent,
  ToolCallInput,
  ToolCallOutput,
  ToolCallReport,
  ToolSeamKey,
} from './toolCallTypes.js';

export { graphEvents } from './toolCallGraph.js';
export { createToolCallLogic } from './toolCallLogic.js';

// The un-provided machine (Stately, diagrams, graph traversal) never runs its actors.
function unprovided<TOutput, TInput>(name: string) {
  return fromPromise<TOutput, TInput>(async () => {
    throw new Error(
      `toolCallMachine actor "${name}" is not provided; build it with createToolCallLogic(services)`,
    );
  });
}
const outputOf = <T>(event: unknown): T => (event as { output: T }).output;
const errorOf = (event: unknown): unknown => (event as { error: unknown }).error;
const actorInput = ({ context }: { context: ToolCallContext }): ToolCallActorInput => ({
  scopeKey: context.scopeKey,
  callKey: context.callKey,
  turn: context.turn,
  step: context.step,
});
const reviewInput = ({ context }: { context: ToolCallContext }): PostExecuteInput => ({
  ...actorInput({ context }),
  result: assembleResult(context),
});

/**
 * One tool call as a statechart: seal → pre-execute → approval → guards → dispatch → (commit) →
 * post-execute → finalize → `tools/result`. Un-provided: bind services with `createToolCallLogic`.
 */
export const toolCallMachine = setup({
  types: {
    input: {} as ToolCallInput,
    context: {} as ToolCallContext,
    events: {} as ToolCallEvent,
    output: {} as ToolCallOutput,
  },
  actors: {
    seal: unprovided<SealOutput, ToolCallActorInput>('seal'),
    preExecute: unprovided<PreExecuteOutput, ToolCallActorInput>('preExecute'),
    approval: unprovided<ApprovalOutput, ToolCallActorInput & { reason: string | null }>('approval'),
    guards: unprovided<GuardsOutput, ToolCallActorInput>('guards'),
    dispatch: unprovided<DispatchOutput, ToolCallActorInput>('dispatch'),
    postExecute: unprovided<PostExecuteOutput, PostExecuteInput>('postExecute'),
    finalize: unprovided<FinalizeOutput, PostExecuteInput>('finalize'),
    watchAbort: fromCallback<{ type: 'ABORT' }, { callKey: string }>(() => undefined),
  },
  actions: {
    // Side effects: no-ops here, bound to services by createToolCallLogic.
    abortCall: () => {},
    emitDefaultDecided: (_, _params: { seam: 'tools/pre-execute' | 'tools/post-execute' }) => {},
    notifyResult: () => {},
    // Reports to the batch (pure: sendParent), only under a batch.
    // Reports to the batch (taken only on transitions guarded by `isBatched`). Sent through `_parent`
    // at execution time, so graph traversal of a parentless machine does not resolve a missing parent.
    reportToBatch: ({ context, self }, params: { report: ToolCallReport['type'] }) => {
      self._parent?.send({ type: params.report, callId: context.callId });
    },
    // Context updates (pure).
    markAborted: assign({ aborted: true }),
    markPrepared: assign({ prepared: true }),
    recordSeal: assign(({ event }) => {
      const output = outputOf<SealOutput>(event);
      return {
        callId: output.callId,
        name: output.name,
        hasFinalizer: output.hasFinalizer,
        seamsPresent: output.seamsPresent,
      };
    }),
    settleInvalidArgs: assign(({ event }) => ({
      result: createFailureResult('INVALID_ARGS', outputOf<SealOutput>(event).message ?? 'Invalid arguments'),
      skipPost: true,
    })),
    settleAbortedBeforeDispatch: assign({ result: () => createAbortedBeforeDispatch(), skipPost: true }),
    settlePipelineError: assign(({ event }) => ({
      result: createPipelineError(errorOf(event)),
      skipPost: true,
    })),
    recordPreDecision: assign(({ event }) => {
      const { decision } = outputOf<PreExecuteOutput>(event);
      return {
        preContexts: decision.additionalContexts ?? [],
        askReason: decision.kind === 'ask' ? (decision.reason ?? null) : null,
      };
    }),
    settleDenial: assign({
      result: ({ event }) => createFailureResult('DENIED', denialReasonOf(outputOf(event))),
    }),
    settleDispatched: assign(({ event }) => {
      const output = outputOf<DispatchOutput>(event);
      return { result: output.result, bodyContexts: output.contexts };
    }),
    settleDidNotStop: assign({ result: () => createDidNotStop(), bodyContexts: [] }),
    applyReview: assign(({ context, event }) => {
      const output = outputOf<PostExecuteOutput>(event);
      return {
        result: output.result,
        postContexts: output.contexts,
        bodyContexts: output.blocked ? [] : context.bodyContexts,
      };
    }),
    settleReviewFailure: assign(({ event }) => ({
      result: createPipelineError(errorOf(event)),
      bodyContexts: [],
      postContexts: [],
    })),
    abandonReview: assign({ result: ({ context }) => abandonReview(context.result), postContexts: [] }),
    assembleResult: assign({ result: ({ context }) => assembleResult(context) }),
    applyFinalized: assign({ result: ({ event }) => outputOf<FinalizeOutput>(event).result }),
    settleFinalizeFailure: assign({
      result: ({ context, event }) => withContexts(createPipelineError(errorOf(event)), context.preContexts),
    }),
  },
  guards: {
    seamIsEmpty: ({ context }, params: { seam: ToolSeamKey }) => !context.seamsPresent[params.seam],
    sealedAs: ({ event }, params: { outcome: SealOutcome }) =>
      outputOf<SealOutput>(event).outcome === params.outcome,
    isAborted: ({ context }) => context.aborted,
    isLive: ({ context }) => !context.aborted,
    preDecisionIs: ({ event }, params: { kind: 'allow' | 'deny' | 'ask' }) =>
      outputOf<PreExecuteOutput>(event).decision.kind === params.kind,
    approvalIs: ({ event }, params: { kind: ApprovalOutput['kind'] }) =>
      outputOf<ApprovalOutput>(event).kind === params.kind,
    guardDenied: ({ event }) => outputOf<GuardsOutput>(event).denied !== null,
    isStandalone: ({ context }) => !context.batched,
    isBatched: ({ context }) => context.batched,
    wasPrepared: ({ context }) => context.prepared,
    skipsPost: ({ context }) => context.skipPost,
    hasNoFinalizer: ({ context }) => !context.hasFinalizer,
  },
  delays: {
    cancelGrace: 5_000,
  },
}).createMachine({
  id: 'toolCall',
  context: ({ input }) => ({
    scopeKey: input.scopeKey,
    callKey: input.callKey,
    batched: input.batched,
    turn: input.turn ?? null,
    step: input.step ?? null,
    callId: '',
    name: '',
    hasFinalizer: false,
    seamsPresent: {
      'tools/pre-execute': false,
      guard: false,
      'tools/execute': false,
      'tools/post-execute': false,
      'tools/result': false,
    },
    aborted: false,
    prepared: false,
    skipPost: false,
    result: null,
    askReason: null,
    preContexts: [],
    bodyContexts: [],
    postContexts: [],
  }),
  // The call's signal (aborted by ABORT or by the run's signal) comes back as ABORT.
  invoke: {
    id: 'abortWatch',
    src: 'watchAbort',
    input: ({ context }) => ({ callKey: context.callKey }),
    onError: { actions: [] },
  },
  // Outside the policy and review phases an abort is only recorded: the result stays as settled.
  on: { ABORT: { guard: 'isLive', actions: ['markAborted', 'abortCall'] } },
  initial: 'sealing',
  states: {
    sealing: {
      invoke: {
        id: 'seal',
        src: 'seal',
        input: actorInput,
        onDone: [
          {
            guard: { type: 'sealedAs', params: { outcome: 'invalid-args' } },
            target: 'settled',
            actions: ['recordSeal', 'settleInvalidArgs'],
          },
          {
            guard: { type: 'sealedAs', params: { outcome: 'pre-aborted' } },
            target: 'settled',
            actions: ['recordSeal', 'settleAbortedBeforeDispatch'],
          },
          { guard: 'isAborted', target: 'settled', actions: ['recordSeal', 'settleAbortedBeforeDispatch'] },
          { target: 'preExecute', actions: 'recordSeal' },
        ],
        onError: { target: 'settled', actions: 'settlePipelineError' },
      },
    },
    preExecute: {
      on: {
        ABORT: {
          guard: 'isLive',
          target: 'settled',
          actions: ['markAborted', 'abortCall', 'settleAbortedBeforeDispatch'],
        },
      },
      initial: 'checking',
      states: {
        checking: {
          always: [
            {
              guard: { type: 'seamIsEmpty', params: { seam: 'tools/pre-execute' } },
              target: '#toolCall.guards',
              actions: { type: 'emitDefaultDecided', params: { seam: 'tools/pre-execute' } },
            },
            { target: 'deciding' },
          ],
        },
        deciding: {
          invoke: {
            id: 'preExecute',
            src: 'preExecute',
            input: actorInput,
            onDone: [
              {
                guard: { type: 'preDecisionIs', params: { kind: 'allow' } },
                target: '#toolCall.guards',
                actions: 'recordPreDecision',
              },
              {
                guard: { type: 'preDecisionIs', params: { kind: 'ask' } },
                target: '#toolCall.awaitingApproval',
                actions: 'recordPreDecision',
              },
              { target: '#toolCall.settled', actions: ['recordPreDecision', 'settleDenial'] },
            ],
            onError: { target: '#toolCall.settled', actions: 'settlePipelineError' },
          },
        },
      },
    },
    awaitingApproval: {
      on: {
        ABORT: {
          guard: 'isLive',
          target: 'settled',
          actions: ['markAborted', 'abortCall', 'settleAbortedBeforeDispatch'],
        },
      },
      invoke: {
        id: 'approval',
        src: 'approval',
        input: ({ context }) => ({ ...actorInput({ context }), reason: context.askReason }),
        onDone: [
          { guard: { type: 'approvalIs', params: { kind: 'granted' } }, target: 'guards' },
          {
            guard: { type: 'approvalIs', params: { kind: 'aborted' } },
            target: 'settled',
            actions: ['markAborted', 'settleAbortedBeforeDispatch'],
          },
          { target: 'settled', actions: 'settleDenial' },
        ],
        onError: { target: 'settled', actions: 'settlePipelineError' },
      },
    },
    guards: {
      on: {
        ABORT: {
          guard: 'isLive',
          target: 'settled',
          actions: ['markAborted', 'abortCall', 'settleAbortedBeforeDispatch'],
        },
      },
      initial: 'checking',
      states: {
        checking: {
          always: [
            { guard: { type: 'seamIsEmpty', params: { seam: 'guard' } }, target: '#toolCall.dispatching' },
            { target: 'deciding' },
          ],
        },
        deciding: {
          invoke: {
            id: 'guards',
            src: 'guards',
            input: actorInput,
            onDone: [
              { guard: 'guardDenied', target: '#toolCall.settled', actions: 'settleDenial' },
              { target: '#toolCall.dispatching' },
            ],
            onError: { target: '#toolCall.settled', actions: 'settlePipelineError' },
          },
        },
      },
    },
    dispatching: {
      invoke: {
        id: 'dispatch',
        src: 'dispatch',
        input: actorInput,
        onDone: { target: 'settled', actions: 'settleDispatched' },
        onError: { target: 'settled', actions: 'settlePipelineError' },
      },
      initial: 'reporting',
      states: {
        // Leaving guards frees the policy lane: the batch may start the next call.
        reporting: {
          always: [
            {
              guard: 'isBatched',
              target: 'running',
              actions: ['markPrepared', { type: 'reportToBatch', params: { report: 'PREPARED' } }],
            },
            { target: 'running', actions: 'markPrepared' },
          ],
        },
        running: {
          on: { ABORT: { guard: 'isLive', target: 'draining', actions: ['markAborted', 'abortCall'] } },
        },
        // A started body is awaited after the abort, but only for the grace period.
        draining: {
          after: { cancelGrace: { target: '#toolCall.settled', actions: 'settleDidNotStop' } },
        },
      },
    },
    settled: {
      initial: 'reporting',
      states: {
        reporting: {
          always: [
            { guard: 'isStandalone', target: '#toolCall.postExecute' },
            {
              guard: 'wasPrepared',
              target: 'awaitingCommit',
              actions: { type: 'reportToBatch', params: { report: 'SETTLED' } },
            },
            // Denied or failed before dispatch: the lane is free now too.
            {
              target: 'awaitingCommit',
              actions: [
                'markPrepared',
                { type: 'reportToBatch', params: { report: 'PREPARED' } },
                { type: 'reportToBatch', params: { report: 'SETTLED' } },
              ],
            },
          ],
        },
        // Under a batch, review waits for the model-order commit.
        awaitingCommit: {
          on: { COMMIT: '#toolCall.postExecute' },
        },
      },
    },
    postExecute: {
      initial: 'checking',
      states: {
        checking: {
          always: [
            { guard: 'skipsPost', target: '#toolCall.finalizing' },
            {
              guard: { type: 'seamIsEmpty', params: { seam: 'tools/post-execute' } },
              target: '#toolCall.finalizing',
              actions: { type: 'emitDefaultDecided', params: { seam: 'tools/post-execute' } },
            },
            { target: 'reviewing' },
          ],
        },
        reviewing: {
          on: {
            ABORT: {
              guard: 'isLive',
              target: '#toolCall.finalizing',
              actions: ['markAborted', 'abortCall', 'abandonReview'],
            },
          },
          invoke: {
            id: 'postExecute',
            src: 'postExecute',
            input: reviewInput,
            onDone: { target: '#toolCall.finalizing', actions: 'applyReview' },
            onError: { target: '#toolCall.finalizing', actions: 'settleReviewFailure' },
          },
        },
      },
    },
    finalizing: {
      entry: 'assembleResult',
      initial: 'checking',
      states: {
        checking: {
          always: [{ guard: 'hasNoFinalizer', target: '#toolCall.notifying' }, { target: 'running' }],
        },
        running: {
          invoke: {
            id: 'finalize',
            src: 'finalize',
            input: ({ context }) => ({ ...actorInput({ context }), result: context.result! }),
            onDone: { target: '#toolCall.notifying', actions: 'applyFinalized' },
            onError: { target: '#toolCall.notifying', actions: 'settleFinalizeFailure' },
          },
        },
      },
    },
    notifying: {
      entry: 'notifyResult',
      always: 'done',
    },
    done: { type: 'final' },
  },
  output: ({ context }) => ({ callId: context.callId, result: context.result! }),
});

function denialReasonOf(output: unknown): string {
  const data = output as Partial<PreExecuteOutput & GuardsOutput & { reason: string }>;
  if (data.decision?.kind === 'deny') return data.decision.reason;
  if (typeof data.denied === 'string') return data.denied;
  if (typeof data.reason === 'string') return data.reason;
  return 'Denied';
}
