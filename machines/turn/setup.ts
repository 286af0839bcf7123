import { type AnyActorRef, assign, setup } from 'xstate';
import type {
  ContinuationDecision,
  HookContext,
  PromptDecision,
  RequestErrorDecision,
} from '../../kernel/index.js';
import { toFailure } from '../../kernel/index.js';
import type { CancelCause } from '../../seams/index.js';
import { deciderOf } from '../../seams/index.js';
import type { InboxItem, Injection } from '../runtime/index.js';
import { sendToLiveChild, servicesOfSystem, type TurnMachineServices } from '../runtime/index.js';
import type { ToolBatchOutput } from '../toolBatch/index.js';
import { toolBatchMachine } from '../toolBatch.js';
import { continuationItemId, createTurnActions } from './actions.js';
import { createTurnActors } from './actors.js';
import { createTurnPhases } from './phases.js';
import {
  type AcceptedAnswer,
  freshStep,
  noRetries,
  resolveTurnEndReason,
  toTurnFailure,
  updateStep,
} from './rules.js';
import type {
  OwedWrite,
  TurnContext,
  TurnEvent,
  TurnInput,
  TurnOutput,
  TurnSeamName,
  TurnSteeringReport,
  TurnStopOutput,
} from './types.js';

const outputOf = <T>(event: unknown): T | undefined => (event as { output?: T }).output;

/** The turn machine's implementations: types, actors, named actions, guards and delays. */
export const turnSetup = setup({
  types: {
    input: {} as TurnInput,
    context: {} as TurnContext,
    events: {} as TurnEvent,
    output: {} as TurnOutput,
  },
  // The seam actors, in ./actors.ts (they find their services through the actor system), and the
  // toolBatch machine as it is; createTurnLogic re-binds the same bodies to fixed services.
  actors: { ...createTurnActors(servicesOfSystem<TurnMachineServices>), toolBatch: toolBatchMachine },
  actions: {
    // The agent's inbox books (decision 52): steering the turn ended itself (dequeued into a step, or
    // discarded by a terminal stop) and a continuation reason it enqueued itself.
    reportSteeringEnded: ({ context }) =>
      reportSteering(context.input.parent, 'STEERING_ENDED', context.steering),
    reportContinueReasonEnded: ({ context }) =>
      reportSteering(
        context.input.parent,
        'STEERING_ENDED',
        context.steering.filter((item) => item.id === continuationItemId(context)),
      ),
    reportSteeringHeld: ({ context }) =>
      reportSteering(
        context.input.parent,
        'STEERING_HELD',
        context.steering.filter((item) => item.id === continuationItemId(context)),
      ),
    // Checked when it runs, not when it is planned: a cancel can make the batch finish first.
    abortBatch: ({ self }) => void sendToLiveChild(self, 'toolBatch', { type: 'ABORT' }),
    // Context updates (pure).
    beginStep: assign(({ context }) => ({ step: context.step + 1, thisStep: freshStep })),
    openStep: assign({ stepOpen: true }),
    // A refused step/end keeps the step open: it is owed, and closing writes it again.
    closeStep: assign(({ context }) =>
      context.refusals.refused === 'step/end' ? {} : { stepOpen: false, stepFifo: [] },
    ),
    // Each attempt at an owed write starts with nothing refused.
    dropRefusal: assign(({ context }) =>
      context.refusals.refused === null ? {} : { refusals: { ...context.refusals, refused: null } },
    ),
    markRewritten: assign({
      refusals: ({ context }, params: { write: OwedWrite }) => ({
        ...context.refusals,
        refused: null,
        rewritten: [...context.refusals.rewritten, params.write],
      }),
    }),
    clearStepFifo: assign({ stepFifo: [] }),
    pushStepFifo: assign({
      stepFifo: ({ context }, params: { contexts: readonly HookContext[] }) => [
        ...context.stepFifo,
        ...params.contexts,
      ],
    }),
    pushSteering: assign({
      steering: ({ context }, params: { item: InboxItem }) => [...context.steering, params.item],
    }),
    clearSteering: assign({ steering: [] }),
    markSteered: assign({
      thisStep: ({ context }) => updateStep(context.thisStep, { steered: context.steering.length > 0 }),
    }),
    acceptAnswer: assign(({ context }, params: { answer: AcceptedAnswer }) => ({
      thisStep: updateStep(context.thisStep, { calls: params.answer.calls }),
      maxTokens: context.maxTokens || params.answer.finish === 'max-tokens',
      answered: true,
      request: noRetries,
    })),
    recordRequestFailure: assign({
      request: ({ context }, params: { error: unknown }) => ({
        failures: context.request.failures + 1,
        lastFailure: toFailure(params.error),
      }),
    }),
    failRequest: assign({
      failure: ({ context }) => {
        // The server's retry-after was for the retry decision; turn/end records message and code.
        const { retryAfterMs: _wait, ...failure } = context.request.lastFailure ?? {
          message: 'The model request failed',
        };
        return context.failure ?? { step: context.step, ...failure };
      },
    }),
    recordFailure: assign({
      failure: ({ context }, params: { error: unknown }) =>
        context.failure ?? toTurnFailure(context.step, params.error),
    }),
    recordRejected: assign({ rejected: (_, params: { reason: string }) => params.reason }),
    recordCancel: assign(({ context }, params: { cause: CancelCause; keepInbox: boolean }) => ({
      // First cause wins, except that disposal overrides an earlier user cancel (not the cancel that ended
      // a suspension: that turn ends `aborted`, approvals.md).
      cancel:
        context.cancel === null || (params.cause.kind === 'disposed' && !context.input.resume?.cancel)
          ? params.cause
          : context.cancel,
      ...dropSteering(context, params.keepInbox),
    })),
    dropPendingSteering: assign(({ context }, params: { keepInbox: boolean }) =>
      dropSteering(context, params.keepInbox),
    ),
    applyContinuation: assign(({ context }, params: { decision: ContinuationDecision }) => {
      const { decision } = params;
      const proceed = decision.action === 'continue';
      const stoppedBy = decision.action === 'stop' ? decision.by : undefined;
      const thisStep = updateStep(context.thisStep, { proceed, stoppedBy });
      if (decision.action !== 'continue' || !decision.reason) return { thisStep };
      const item: InboxItem = {
        id: continuationItemId(context),
        content: decision.reason.content,
        source: decision.reason.source,
        contexts: [],
        wakeup: true,
        ...(decision.by === undefined ? {} : { decidedBy: decision.by }),
      };
      return { thisStep, steering: [...context.steering, item] };
    }),
    recordStop: assign({
      stop: (_, params: { output: TurnStopOutput }) =>
        params.output.decision?.reason === undefined
          ? { stoppedBy: params.output.decidedBy, decidedBy: deciderOf(params.output) }
          : {
              stoppedBy: params.output.decidedBy,
              stopReason: params.output.decision.reason,
              decidedBy: deciderOf(params.output),
            },
    }),
    holdInjection: assign({
      held: ({ context }, params: { injection: Injection }) => [...context.held, params.injection],
    }),
    recordMaxSteps: assign({ maxSteps: true }),
    // At the cap a continuation's own reason is dropped (it would restart the loop as the next prompt).
    dropContinueReason: assign({
      steering: ({ context }) => context.steering.filter((item) => item.id !== continuationItemId(context)),
    }),
    settleReason: assign({ endReason: ({ context }) => resolveTurnEndReason(context) }),
    // The step re-entered from the log: its answer's calls, open, its held contexts in the FIFO.
    takeResume: assign(({ context }) => ({
      stepOpen: true,
      thisStep: updateStep(freshStep, { calls: context.resume?.calls ?? [] }),
      stepFifo: [...(context.resume?.contexts ?? [])],
    })),
    clearResume: assign({ resume: null }),
    // The refusal was reported; the suspended step is as it was, so nothing of it failed.
    forgetRefusedResume: assign({ failure: null }),
    // Tells the agent the turn suspended: it stops the turn (the log has everything a resume needs).
    notifySuspended: ({ context }) => {
      context.input.parent?.send({ type: 'TURN_SUSPENDED' });
    },
  },
  guards: {
    seamIsEmpty: ({ context }, params: { seam: TurnSeamName }) => !context.input.seamsPresent[params.seam],
    promptBlocked: ({ event }) => outputOf<PromptDecision>(event)?.kind === 'block',
    batchFailed: ({ event }) => outputOf<ToolBatchOutput>(event)?.error !== undefined,
    batchSuspended: ({ event }) => outputOf<ToolBatchOutput>(event)?.suspended !== undefined,
    resumes: ({ context }) => context.resume !== null,
    resumeCancels: ({ context }) => context.resume?.cancel != null,
    answerHasToolCalls: ({ context }) => context.thisStep.calls.length > 0,
    isCancelled: ({ context }) => context.cancel !== null,
    hasFailure: ({ context }) => context.failure !== null,
    noFailure: ({ context }) => context.failure === null,
    // The store refused this owed write on its last attempt, and it was not written again yet.
    rewriteOwed: ({ context }, params: { write: OwedWrite }) =>
      context.refusals.refused === params.write && !context.refusals.rewritten.includes(params.write),
    // An owed write is written again once: refused twice, the store refuses everything (reported, given up).
    mayRewrite: ({ context }, params: { write: OwedWrite }) =>
      !context.refusals.rewritten.includes(params.write),
    retryAllowed: ({ context, event }) =>
      outputOf<RequestErrorDecision>(event)?.action === 'retry' &&
      context.request.failures <= context.input.maxRequestRetries,
    stopReturned: ({ event }) => outputOf<TurnStopOutput>(event)?.decision !== undefined,
    // Back into `step`: asked to go on (or steering is pending), no turn-stop stopped it, under the step cap.
    shouldContinue: ({ context }) => wouldContinue(context) && context.step < context.input.maxStepsPerTurn,
    // The turn would go back into `step`, but it has taken `maxStepsPerTurn` steps (and has not recorded it).
    stepCapReached: ({ context }) =>
      wouldContinue(context) && context.step >= context.input.maxStepsPerTurn && !context.maxSteps,
  },
  delays: {
    cancelGrace: 5000,
  },
}).extend({
  // Side effects, in ./actions.ts and ./phases.ts: by default they find their services through the
  // actor system (createTurnLogic re-binds the same bodies to fixed services). The model request and
  // the log flush answer `model.done`/`model.error`, `flush.done`/`flush.error`.
  actions: {
    ...createTurnActions(servicesOfSystem<TurnMachineServices>),
    ...createTurnPhases(servicesOfSystem<TurnMachineServices>),
  },
});

/** The step asks for another: a continue decision or pending steering, and no turn-stop's stop. */
function wouldContinue(context: TurnContext): boolean {
  return context.stop === null && (context.thisStep.proceed || context.steering.length > 0);
}

/** Tells the parent agent (if any) about ledger entries of steering the turn took on or ended. */
function reportSteering(
  parent: AnyActorRef | undefined,
  type: TurnSteeringReport['type'],
  items: readonly InboxItem[],
): void {
  if (items.length === 0) return;
  const report: TurnSteeringReport = { type, ids: items.map((item) => item.id) };
  parent?.send(report);
}

function dropSteering(context: TurnContext, keepInbox: boolean): Partial<TurnContext> {
  return keepInbox ? {} : { steering: [], dropped: [...context.dropped, ...context.steering] };
}
