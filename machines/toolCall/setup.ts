import { type ActorSystem, type AnyActorRef, assign, raise, setup } from 'xstate';
import { createFailureResult, withContexts } from '../../tools/index.js';
import { liveHandlesOf, servicesOfSystem, type ToolMachineServices } from '../runtime/index.js';
import { createToolCallActions } from './actions.js';
import {
  abandonReview,
  assembleResult,
  createAbortedBeforeDispatch,
  createDidNotStop,
  createPipelineError,
  describeApprovalRefusal,
} from './rules.js';
import type {
  ApprovalOutput,
  DetachOutcome,
  DetachOutput,
  DispatchOutput,
  FinalizeOutput,
  GuardsOutput,
  PostExecuteOutput,
  PreExecuteOutput,
  PrepareOutput,
  ToolCallContext,
  ToolCallEvent,
  ToolCallInput,
  ToolCallOutput,
  ToolCallReport,
  ToolSeamKey,
} from './types.js';

const outputOf = <T>(event: unknown): T => (event as { output: T }).output;
const errorOf = (event: unknown): unknown => (event as { error: unknown }).error;

/** The batch a call reports to (it opened the call's handles and steps it); none for a standalone call. */
const batchOf = (context: ToolCallContext, system: ActorSystem<any>): AnyActorRef | undefined =>
  liveHandlesOf(system).calls.find(context.callKey)?.batch;

/** The toolCall machine's implementations: types, named actions, guards and delays (no actors: phases are actions). */
export const toolCallSetup = setup({
  types: {
    input: {} as ToolCallInput,
    context: {} as ToolCallContext,
    events: {} as ToolCallEvent,
    output: {} as ToolCallOutput,
  },
  actions: {
    // Reports to the batch (taken only on transitions guarded by `isBatched`). Sent through `_parent`
    // at execution time, so graph traversal of a parentless machine does not resolve a missing parent.
    reportToBatch: ({ context, system }, params: { report: 'PREPARED' | 'SETTLED' | 'HELD' }) => {
      batchOf(context, system)?.send({ type: 'call.report', report: params.report, callId: context.callId });
    },
    // Tells the batch the call parked: it records `approval/requested` (or keeps the request it re-parked on).
    reportParked: ({ context, system }) => {
      const { resume, reason, askedBy, expiresAt } = context.approval;
      const reparked = resume?.as === 'parked' ? resume : null;
      const report: ToolCallReport = {
        type: 'call.report',
        report: 'PARKED',
        callId: context.callId,
        request: {
          requestId: reparked?.requestId ?? null,
          answered: reparked?.answer != null,
          reason,
          askedBy: askedBy ?? 'default',
          expiresAt,
        },
      };
      batchOf(context, system)?.send(report);
    },
    // Context updates (pure).
    markAborted: assign({ aborted: true }),
    // The grace is counted from the first abort, so a review entered after it cannot extend it.
    startCancelGrace: raise({ type: 'CANCEL_GRACE_OVER' }, { id: 'cancelGrace', delay: 'cancelGrace' }),
    markGraceOver: assign({ graceOver: true }),
    markPrepared: assign({ prepared: true }),
    markRecorded: assign({ recorded: true }),
    recordDetach: assign(({ event }) => {
      const output = outputOf<DetachOutput>(event);
      return {
        callId: output.callId,
        name: output.name,
        hasFinalizer: output.hasFinalizer,
        seamsPresent: output.seamsPresent,
      };
    }),
    settleInvalidArgs: assign(({ event }) => ({
      result: createFailureResult(
        'INVALID_ARGS',
        outputOf<DetachOutput>(event).message ?? 'Invalid arguments',
      ),
      skipPost: true,
    })),
    // A rewrite the tool refused (`INVALID_ARGS`) or a throwing listener (`PIPELINE_ERROR`).
    settlePrepareRefusal: assign(({ event }) => {
      const output = outputOf<PrepareOutput>(event);
      return {
        result:
          output.outcome === 'refused' ? output.result : createPipelineError(new Error('prepare refused')),
        skipPost: true,
      };
    }),
    settleAbortedBeforeDispatch: assign({ result: () => createAbortedBeforeDispatch(), skipPost: true }),
    settlePipelineError: assign(({ event }) => ({
      result: createPipelineError(errorOf(event)),
      skipPost: true,
    })),
    recordPreDecision: assign(({ context, event }) => {
      const { decision, decidedBy } = outputOf<PreExecuteOutput>(event);
      const ask = decision.kind === 'ask';
      return {
        contexts: {
          pre: decision.additionalContexts ?? [],
          body: context.contexts.body,
          post: context.contexts.post,
        },
        approval: {
          ...context.approval,
          reason: ask ? (decision.reason ?? null) : null,
          askedBy: ask ? decidedBy : null,
        },
      };
    }),
    recordDeferral: assign(({ context, event }) => ({
      approval: { ...context.approval, expiresAt: outputOf<{ expiresAt: string | null }>(event).expiresAt },
    })),
    // The call left the state it re-entered in: from now on it runs (and may park) as any call.
    clearResume: assign(({ context }) => ({ approval: { ...context.approval, resume: null } })),
    // A parked call's answer on resume: `rejected`, `expired` or `cancelled` is its denial.
    settleParkedDenial: assign(({ context }) => {
      const resume = context.approval.resume;
      const answer = resume?.as === 'parked' ? resume.answer : null;
      const outcome = answer?.outcome ?? 'rejected';
      const refusal = outcome === 'expired' || outcome === 'cancelled' ? outcome : 'rejected';
      return {
        result: createFailureResult('DENIED', describeApprovalRefusal(context.name, refusal, answer?.reason)),
        approval: { ...context.approval, resume: null },
      };
    }),
    settleDenial: assign({
      result: ({ event }) => createFailureResult('DENIED', denialReasonOf(outputOf(event))),
    }),
    settleDispatched: assign(({ context, event }) => {
      const output = outputOf<DispatchOutput>(event);
      const { pre, post } = context.contexts;
      return { result: output.result, contexts: { pre, body: output.contexts, post } };
    }),
    settleDidNotStop: assign(({ context }) => ({
      result: createDidNotStop(),
      contexts: { pre: context.contexts.pre, body: [], post: context.contexts.post },
    })),
    applyReview: assign(({ context, event }) => {
      const output = outputOf<PostExecuteOutput>(event);
      return {
        result: output.result,
        contexts: {
          pre: context.contexts.pre,
          body: output.blocked ? [] : context.contexts.body,
          post: output.contexts,
        },
      };
    }),
    settleReviewFailure: assign(({ context, event }) => ({
      result: createPipelineError(errorOf(event)),
      contexts: { pre: context.contexts.pre, body: [], post: [] },
    })),
    abandonReview: assign(({ context }) => ({
      result: abandonReview(context.result),
      contexts: { pre: context.contexts.pre, body: context.contexts.body, post: [] },
    })),
    assembleResult: assign({ result: ({ context }) => assembleResult(context) }),
    applyFinalized: assign({ result: ({ event }) => outputOf<FinalizeOutput>(event).result }),
    settleFinalizeFailure: assign({
      result: ({ context, event }) => withContexts(createPipelineError(errorOf(event)), context.contexts.pre),
    }),
  },
  guards: {
    seamIsEmpty: ({ context }, params: { seam: ToolSeamKey }) => !context.seamsPresent[params.seam],
    detachedAs: ({ event }, params: { outcome: DetachOutcome }) =>
      outputOf<DetachOutput>(event).outcome === params.outcome,
    // Read cleanly, not aborted meanwhile, a listener on tools/prepare and an input it may rewrite.
    foldsInput: ({ context, event }) => {
      const output = outputOf<DetachOutput>(event);
      return !context.aborted && output.seamsPresent['tools/prepare'] && output.preparable;
    },
    // A standalone call read cleanly, not aborted meanwhile, with no listener before its body.
    standaloneSkipsToBody: ({ context, event }) => {
      const output = outputOf<DetachOutput>(event);
      return (
        !context.batched &&
        !context.aborted &&
        output.outcome === 'detached' &&
        !output.seamsPresent['tools/prepare'] &&
        !output.seamsPresent['tools/pre-execute'] &&
        !output.seamsPresent.guard
      );
    },
    // A standalone call pre-execute allowed, with no guard listener: nothing stands before its body.
    standaloneAllowedWithoutGuards: ({ context, event }) =>
      !context.batched &&
      !context.seamsPresent.guard &&
      outputOf<PreExecuteOutput>(event).decision.kind === 'allow',
    // A standalone call (no commit to wait for) with no post-execute listener: nothing reviews its body.
    standaloneReviewIsEmpty: ({ context }) => !context.batched && !context.seamsPresent['tools/post-execute'],
    preparedAs: ({ event }, params: { outcome: PrepareOutput['outcome'] }) =>
      outputOf<PrepareOutput>(event).outcome === params.outcome,
    hasResult: ({ context }) => context.result !== null,
    isAborted: ({ context }) => context.aborted,
    isLive: ({ context }) => !context.aborted,
    // Live, with an identity (past detach) and no result: an abort settles it before its body ran.
    abortSettlesBeforeDispatch: ({ context }) =>
      !context.aborted && context.callId !== '' && context.result === null,
    // Re-entering from the log (approvals.md): its input was prepared and recorded before the suspension.
    isResumed: ({ context }) => context.approval.resume !== null,
    graceIsOver: ({ context }) => context.graceOver,
    preDecisionIs: ({ event }, params: { kind: 'allow' | 'deny' | 'ask' }) =>
      outputOf<PreExecuteOutput>(event).decision.kind === params.kind,
    approvalIs: ({ event }, params: { kind: ApprovalOutput['kind'] }) =>
      outputOf<ApprovalOutput>(event).kind === params.kind,
    guardDenied: ({ event }) => outputOf<GuardsOutput>(event).denied !== null,
    isStandalone: ({ context }) => !context.batched,
    isBatched: ({ context }) => context.batched,
    // Under a batch, its `tool/call` is not in the log yet (the batch says RECORDED).
    awaitsRecord: ({ context }) => context.batched && !context.recorded,
    // An earlier call of the batch is parked: nothing behind it is dispatched before the turn resumes.
    dispatchHeld: ({ context }) => context.approval.holdDispatch,
    resumesAs: ({ context }, params: { as: 'parked' | 'held' }) => context.approval.resume?.as === params.as,
    // A parked call re-entered with an answer: `allowed-once` lets it on (unless its dispatch is held).
    parkedAnswerIs: ({ context }, params: { allows: boolean }) => {
      const resume = context.approval.resume;
      if (resume?.as !== 'parked' || resume.answer === null) return false;
      return (resume.answer.outcome === 'allowed-once') === params.allows;
    },
    wasPrepared: ({ context }) => context.prepared,
    skipsPost: ({ context }) => context.skipPost,
    hasNoFinalizer: ({ context }) => !context.hasFinalizer,
  },
  delays: {
    cancelGrace: 5_000,
  },
}).extend({
  // Side effects, in ./actions.ts: by default they find their services through the actor system
  // (createToolCallLogic re-binds the same bodies to fixed services). Each phase answers
  // `<phase>.done` (with `output`) or `<phase>.error` (with `error`).
  actions: createToolCallActions(servicesOfSystem<ToolMachineServices>),
});

function denialReasonOf(output: unknown): string {
  const data = output as Partial<PreExecuteOutput & GuardsOutput & { reason: string }>;
  if (data.decision?.kind === 'deny') return data.decision.reason;
  if (typeof data.denied === 'string') return data.denied;
  if (typeof data.reason === 'string') return data.reason;
  return 'Denied';
}
