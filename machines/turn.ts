import { type AnyActorRef, assign, fromPromise, setup } from 'xstate';
import { Seam } from '../seams/names.js';
import type {
  ContinuationDecision,
  HookContext,
  PromptDecision,
  RequestErrorDecision,
} from '../seams/schemas.js';
import type { CancelCause, WaterfallSeamName } from '../seams/types.js';
import type { InboxItem, Injection } from './inbox.js';
import type { TurnMachineServices } from './services.js';
import { fixedServices, once, type ServicesResolver, servicesOfSystem } from './systemServices.js';
import { toolBatchMachine } from './toolBatch.js';
import { createToolBatchLogic, sharedToolBatchLogic } from './toolBatchLogic.js';
import type { ToolBatchOutput } from './toolBatchTypes.js';
import { continuationItemId, createTurnActionsFor } from './turnActions.js';
import { createTurnActorsFor } from './turnActors.js';
import { sendToLiveChild } from './turnChildren.js';
import {
  type AcceptedAnswer,
  defaultContinuation,
  defaultPromptDecision,
  resolveTurnEndReason,
  toFailure,
  toTurnFailure,
} from './turnRules.js';
import type {
  ContinuationInput,
  PromptSubmitInput,
  RequestErrorInput,
  ToolBatchInput,
  TurnContext,
  TurnEvent,
  TurnInput,
  TurnOutput,
  TurnSeamInput,
  TurnSeamName,
  TurnSteeringReport,
  TurnStopOutput,
} from './turnTypes.js';

export { graphEvents } from './turnGraph.js';

// The un-provided machine (Stately, diagrams, graph traversal) never runs its actors.
function unprovided<TOutput, TInput>(name: string) {
  return fromPromise<TOutput, TInput>(async () => {
    throw new Error(
      `turnMachine actor "${name}" is not provided; build the turn with createTurnLogic(services)`,
    );
  });
}
const noop = (): void => {};
const outputOf = <T>(event: unknown): T | undefined => (event as { output?: T }).output;
/** First in every transient state: a refused append closes the turn before anything else is written. */
const bail = { guard: 'hasFailure', target: '#turn.closing' } as const;

/** The seam-actor input every turn state builds from context. */
const seamInput = ({ context }: { context: TurnContext }): TurnSeamInput => ({
  scopeKey: context.scopeKey,
  agentId: context.agentId,
  turn: context.turn,
  step: context.step,
});

/**
 * The turn statechart: one claimed message from `turn/start` to `turn/end` and its flush.
 * Un-provided: bind services with `createTurnLogic(services)`.
 */
export const turnMachine = setup({
  types: {
    input: {} as TurnInput,
    context: {} as TurnContext,
    events: {} as TurnEvent,
    output: {} as TurnOutput,
  },
  actors: {
    promptSubmit: unprovided<PromptDecision, PromptSubmitInput>('promptSubmit'),
    preStep: unprovided<void, TurnSeamInput>('preStep'),
    model: unprovided<AcceptedAnswer, TurnSeamInput>('model'),
    toolBatch: toolBatchMachine,
    postStep: unprovided<void, TurnSeamInput>('postStep'),
    continuation: unprovided<ContinuationDecision, ContinuationInput>('continuation'),
    turnStop: unprovided<TurnStopOutput, TurnSeamInput>('turnStop'),
    requestError: unprovided<RequestErrorDecision, RequestErrorInput>('requestError'),
    flushLog: unprovided<void, { readonly turn: number }>('flushLog'),
  },
  actions: {
    // Side effects: no-ops here, bound to services by createTurnLogic.
    appendTurnStart: noop,
    recordPrompt: (_, _params: { decision: PromptDecision }) => {},
    recordBlocked: (_, _params: { reason: string; contexts: readonly HookContext[] }) => {},
    emitDefaultDecided: (_, _params: { seam: WaterfallSeamName; decision: unknown }) => {},
    recordSteering: noop,
    appendStepStart: noop,
    recordAnswer: (_, _params: { answer: AcceptedAnswer }) => {},
    appendStepFifo: noop,
    appendStepEnd: noop,
    closeOpenStep: noop,
    appendInjection: (_, _params: { injection: Injection }) => {},
    announceContinueReason: noop,
    discardSteering: noop,
    abortTurn: noop,
    reportFailure: (_, _params: { origin: string }) => {},
    reportListenerFailure: (_, _params: { origin: string; error: unknown }) => {},
    repairCalls: noop,
    appendTurnEnd: noop,
    notifyClosed: noop,
    reportFlushFailure: (_, _params: { error: unknown }) => {},
    // The agent's inbox books (decision 41): steering the turn ended itself (dequeued into a step, or
    // discarded by a terminal stop) and a continuation reason it enqueued itself.
    reportSteeringEnded: ({ context, self }) => reportSteering(self, 'STEERING_ENDED', context.steering),
    reportSteeringHeld: ({ context, self }) =>
      reportSteering(
        self,
        'STEERING_HELD',
        context.steering.filter((item) => item.id === continuationItemId(context)),
      ),
    // Checked when it runs, not when it is planned: a cancel can make the batch finish first.
    abortBatch: ({ self }) => void sendToLiveChild(self, 'toolBatch', { type: 'ABORT' }),
    // Context updates (pure).
    beginStep: assign(({ context }) => ({
      step: context.step + 1,
      calls: [],
      hadToolCalls: false,
      steered: false,
      proceed: false,
    })),
    openStep: assign({ stepOpen: true }),
    closeStep: assign({ stepOpen: false, stepFifo: [] }),
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
    markSteered: assign({ steered: ({ context }) => context.steering.length > 0 }),
    acceptAnswer: assign(({ context }, params: { answer: AcceptedAnswer }) => ({
      calls: params.answer.calls,
      hadToolCalls: params.answer.calls.length > 0,
      maxTokens: context.maxTokens || params.answer.finish === 'max-tokens',
      requestFailures: 0,
      requestFailure: null,
    })),
    recordRequestFailure: assign(({ context }, params: { error: unknown }) => ({
      requestFailures: context.requestFailures + 1,
      requestFailure: toFailure(params.error),
    })),
    failRequest: assign({
      failure: ({ context }) =>
        context.failure ?? {
          step: context.step,
          ...(context.requestFailure ?? { message: 'The model request failed' }),
        },
    }),
    recordFailure: assign({
      failure: ({ context }, params: { error: unknown }) =>
        context.failure ?? toTurnFailure(context.step, params.error),
    }),
    recordRejected: assign({ rejected: (_, params: { reason: string }) => params.reason }),
    recordCancel: assign(({ context }, params: { cause: CancelCause; keepInbox: boolean }) => ({
      // First cause wins, except that disposal overrides an earlier user cancel.
      cancel: context.cancel === null || params.cause.kind === 'disposed' ? params.cause : context.cancel,
      ...dropSteering(context, params.keepInbox),
    })),
    dropPendingSteering: assign(({ context }, params: { keepInbox: boolean }) =>
      dropSteering(context, params.keepInbox),
    ),
    applyContinuation: assign(({ context }, params: { decision: ContinuationDecision }) => {
      const { decision } = params;
      if (decision.action !== 'continue' || !decision.reason)
        return { proceed: decision.action === 'continue' };
      const item: InboxItem = {
        id: continuationItemId(context),
        content: decision.reason.content,
        source: decision.reason.source,
        contexts: [],
        wakeup: true,
      };
      return { proceed: true, steering: [...context.steering, item] };
    }),
    recordStop: assign({
      stop: (_, params: { output: TurnStopOutput }) =>
        params.output.decision?.reason === undefined
          ? { stoppedBy: params.output.decidedBy }
          : { stoppedBy: params.output.decidedBy, stopReason: params.output.decision.reason },
    }),
    holdInjection: assign({
      held: ({ context }, params: { injection: Injection }) => [...context.held, params.injection],
    }),
    settleReason: assign({ endReason: ({ context }) => resolveTurnEndReason(context) }),
  },
  guards: {
    seamIsEmpty: ({ context }, params: { seam: TurnSeamName }) => !context.seamsPresent[params.seam],
    promptBlocked: ({ event }) => outputOf<PromptDecision>(event)?.kind === 'block',
    batchFailed: ({ event }) => outputOf<ToolBatchOutput>(event)?.error !== undefined,
    answerHasToolCalls: ({ context }) => context.calls.length > 0,
    isCancelled: ({ context }) => context.cancel !== null,
    hasFailure: ({ context }) => context.failure !== null,
    retryAllowed: ({ context, event }) =>
      outputOf<RequestErrorDecision>(event)?.action === 'retry' &&
      context.requestFailures <= context.maxRequestRetries,
    stopReturned: ({ event }) => outputOf<TurnStopOutput>(event)?.decision !== undefined,
    shouldContinue: ({ context }) => context.proceed || context.steering.length > 0,
  },
  delays: {
    cancelGrace: 5000,
  },
}).createMachine({
  id: 'turn',
  context: ({ input }) => ({
    ...input,
    step: 0,
    stepOpen: false,
    stepFifo: [],
    steering: [],
    dropped: [],
    held: [],
    calls: [],
    hadToolCalls: false,
    steered: false,
    maxTokens: false,
    requestFailures: 0,
    requestFailure: null,
    failure: null,
    rejected: null,
    cancel: null,
    proceed: false,
    stop: null,
    endReason: null,
  }),
  initial: 'opening',
  states: {
    opening: {
      // From turn/start on, turn/end is owed; the append confirms itself with TURN_OPENED.
      // No STEER/INJECT/CANCEL here: the turn leaves `opening` before start() returns, so none can arrive.
      entry: 'appendTurnStart',
      on: {
        TURN_OPENED: 'open',
        // turn/start was refused: nothing is owed, nothing more is written.
        INTERNAL_ERROR: {
          target: 'done',
          actions: [
            {
              type: 'recordFailure',
              params: ({ event }) => ({ error: { ...event.error, code: 'INTERNAL_ERROR' } }),
            },
            // Closed before the report: an agent/error listener's steer must find the agent past `open`.
            'notifyClosed',
            { type: 'reportFailure', params: { origin: 'turn' } },
            'settleReason',
          ],
        },
      },
    },
    open: {
      // turn/start is written and turn/end is owed; these are the defaults of an open turn.
      on: {
        STEER: { actions: { type: 'pushSteering', params: ({ event }) => ({ item: event.item }) } },
        INJECT: {
          actions: { type: 'appendInjection', params: ({ event }) => ({ injection: event.injection }) },
        },
        CANCEL: {
          target: '#turn.closing',
          actions: [{ type: 'recordCancel', params: ({ event }) => event }, 'abortTurn'],
        },
        // No INTERNAL_ERROR: a failed append is assigned in its own microstep (`hasFailure`, decision 26).
      },
      initial: 'promptSubmit',
      states: {
        promptSubmit: {
          always: {
            guard: { type: 'seamIsEmpty', params: { seam: Seam.promptSubmit } },
            target: 'step',
            actions: [
              {
                type: 'emitDefaultDecided',
                params: ({ context }) => ({
                  seam: Seam.promptSubmit,
                  decision: defaultPromptDecision(context.item),
                }),
              },
              {
                type: 'recordPrompt',
                params: ({ context }) => ({ decision: defaultPromptDecision(context.item) }),
              },
            ],
          },
          invoke: {
            id: 'promptSubmit',
            src: 'promptSubmit',
            input: ({ context }): PromptSubmitInput => ({ ...seamInput({ context }), item: context.item }),
            onDone: [
              {
                guard: 'promptBlocked',
                target: '#turn.closing',
                actions: [
                  {
                    type: 'recordBlocked',
                    params: ({ event }) => ({
                      reason: blockReason(event.output),
                      contexts: blockContexts(event.output),
                    }),
                  },
                  { type: 'recordRejected', params: ({ event }) => ({ reason: blockReason(event.output) }) },
                ],
              },
              {
                target: 'step',
                actions: { type: 'recordPrompt', params: ({ event }) => ({ decision: event.output }) },
              },
            ],
            onError: {
              target: '#turn.closing',
              actions: [
                { type: 'recordFailure', params: ({ event }) => ({ error: event.error }) },
                { type: 'reportFailure', params: { origin: Seam.promptSubmit } },
              ],
            },
          },
        },
        step: {
          entry: 'beginStep',
          initial: 'drainSteering',
          states: {
            drainSteering: {
              entry: ['recordSteering', 'reportSteeringEnded', 'clearSteering'],
              always: [bail, { target: 'preStep' }],
            },
            preStep: {
              always: [
                bail,
                { guard: { type: 'seamIsEmpty', params: { seam: Seam.preStep } }, target: 'requesting' },
              ],
              invoke: {
                id: 'preStep',
                src: 'preStep',
                input: seamInput,
                onDone: 'requesting',
                onError: {
                  target: '#turn.closing',
                  actions: [
                    { type: 'recordFailure', params: ({ event }) => ({ error: event.error }) },
                    { type: 'reportFailure', params: { origin: Seam.preStep } },
                  ],
                },
              },
            },
            requesting: {
              entry: ['openStep', 'appendStepStart'],
              always: bail,
              invoke: {
                id: 'model',
                src: 'model',
                input: seamInput,
                onDone: {
                  target: 'answered',
                  actions: [
                    { type: 'acceptAnswer', params: ({ event }) => ({ answer: event.output }) },
                    { type: 'recordAnswer', params: ({ event }) => ({ answer: event.output }) },
                  ],
                },
                onError: {
                  target: '#turn.open.requestError',
                  actions: [
                    { type: 'recordRequestFailure', params: ({ event }) => ({ error: event.error }) },
                    'appendStepFifo',
                    'appendStepEnd',
                    'closeStep',
                  ],
                },
              },
              on: {
                // From step/start until the step's results are recorded, contexts wait in the step FIFO.
                INJECT: {
                  actions: { type: 'pushStepFifo', params: ({ event }) => ({ contexts: [event.injection] }) },
                },
              },
            },
            answered: {
              always: [
                bail,
                { guard: 'answerHasToolCalls', target: 'tools' },
                // No tool calls: the step's results are recorded, so its FIFO follows the answer now.
                { target: 'postBatchSteering', actions: ['appendStepFifo', 'clearStepFifo'] },
              ],
              on: {
                INJECT: {
                  actions: { type: 'pushStepFifo', params: ({ event }) => ({ contexts: [event.injection] }) },
                },
              },
            },
            tools: {
              initial: 'running',
              invoke: {
                id: 'toolBatch',
                src: 'toolBatch',
                input: ({ context }): ToolBatchInput => ({
                  scopeKey: context.scopeKey,
                  turn: context.turn,
                  step: context.step,
                  calls: [...context.calls],
                  maxParallel: context.maxParallel,
                }),
                onDone: [
                  {
                    // An append of the batch failed: like a failed append of the turn, plus the repair.
                    guard: 'batchFailed',
                    target: '#turn.closing',
                    actions: [
                      'repairCalls',
                      {
                        type: 'recordFailure',
                        params: ({ event }) => ({ error: internalError(event.output.error) }),
                      },
                      { type: 'reportFailure', params: { origin: 'toolBatch' } },
                    ],
                  },
                  { target: 'postBatchSteering', actions: ['appendStepFifo', 'clearStepFifo'] },
                ],
                onError: {
                  // The batch died: repair its calls, then close the step and the turn with `error`.
                  target: '#turn.closing',
                  actions: [
                    'repairCalls',
                    { type: 'recordFailure', params: ({ event }) => ({ error: internalError(event.error) }) },
                    { type: 'reportFailure', params: { origin: 'toolBatch' } },
                  ],
                },
              },
              on: {
                INJECT: {
                  actions: { type: 'pushStepFifo', params: ({ event }) => ({ contexts: [event.injection] }) },
                },
                CALL_COMMITTED: {
                  actions: { type: 'pushStepFifo', params: ({ event }) => ({ contexts: event.contexts }) },
                },
              },
              states: {
                running: {
                  on: {
                    // The batch is aborted and awaited: started calls drain, unstarted ones get synthetic pairs.
                    // ABORT first: the turn signal's abort reaches the batch too, and may finish it at once.
                    CANCEL: {
                      target: 'draining',
                      actions: [
                        { type: 'recordCancel', params: ({ event }) => event },
                        'abortBatch',
                        'abortTurn',
                      ],
                    },
                  },
                },
                draining: {
                  on: {
                    // A later cause (dispose over a user cancel) still wins; the batch is already aborted.
                    CANCEL: {
                      actions: [{ type: 'recordCancel', params: ({ event }) => event }, 'abortTurn'],
                    },
                  },
                },
              },
            },
            postBatchSteering: {
              always: [
                { guard: 'hasFailure', target: '#turn.closing' },
                // Steering is never drained into an aborted turn.
                { guard: 'isCancelled', target: 'abortedPostStep' },
                {
                  target: 'postStep',
                  actions: ['markSteered', 'recordSteering', 'reportSteeringEnded', 'clearSteering'],
                },
              ],
            },
            postStep: {
              always: [
                bail,
                {
                  guard: { type: 'seamIsEmpty', params: { seam: Seam.postStep } },
                  target: 'continuation',
                  actions: ['appendStepEnd', 'closeStep'],
                },
              ],
              invoke: {
                id: 'postStep',
                src: 'postStep',
                input: seamInput,
                onDone: { target: 'continuation', actions: ['appendStepEnd', 'closeStep'] },
                onError: {
                  target: '#turn.closing',
                  actions: [
                    { type: 'recordFailure', params: ({ event }) => ({ error: event.error }) },
                    { type: 'reportFailure', params: { origin: Seam.postStep } },
                  ],
                },
              },
            },
            abortedPostStep: {
              // Post-step runs once after a cancelled batch, with the aborted signal, bounded by cancelGrace.
              always: {
                guard: { type: 'seamIsEmpty', params: { seam: Seam.postStep } },
                target: '#turn.closing',
              },
              invoke: {
                id: 'abortedPostStep',
                src: 'postStep',
                input: seamInput,
                onDone: '#turn.closing',
                // The turn is already interrupted; interruptions never emit agent/error.
                onError: '#turn.closing',
              },
              after: { cancelGrace: '#turn.closing' },
            },
            continuation: {
              always: [
                bail,
                {
                  guard: { type: 'seamIsEmpty', params: { seam: Seam.turnContinuation } },
                  target: 'turnStop',
                  actions: [
                    {
                      type: 'emitDefaultDecided',
                      params: ({ context }) => ({
                        seam: Seam.turnContinuation,
                        decision: defaultContinuation(context),
                      }),
                    },
                    {
                      type: 'applyContinuation',
                      params: ({ context }) => ({ decision: defaultContinuation(context) }),
                    },
                  ],
                },
              ],
              invoke: {
                id: 'continuation',
                src: 'continuation',
                input: ({ context }): ContinuationInput => ({
                  ...seamInput({ context }),
                  defaultDecision: defaultContinuation(context),
                }),
                onDone: {
                  target: 'turnStop',
                  actions: [
                    { type: 'applyContinuation', params: ({ event }) => ({ decision: event.output }) },
                    'announceContinueReason',
                    'reportSteeringHeld',
                  ],
                },
                onError: {
                  target: '#turn.closing',
                  actions: [
                    { type: 'recordFailure', params: ({ event }) => ({ error: event.error }) },
                    { type: 'reportFailure', params: { origin: Seam.turnContinuation } },
                  ],
                },
              },
            },
            turnStop: {
              always: [
                bail,
                { guard: { type: 'seamIsEmpty', params: { seam: Seam.turnStop } }, target: 'deciding' },
              ],
              invoke: {
                id: 'turnStop',
                src: 'turnStop',
                input: seamInput,
                onDone: [
                  {
                    // A stop is terminal: pending steering is discarded, later steering too (by the agent).
                    guard: 'stopReturned',
                    target: '#turn.closing',
                    actions: [
                      { type: 'recordStop', params: ({ event }) => ({ output: event.output }) },
                      'discardSteering',
                      'reportSteeringEnded',
                      'clearSteering',
                    ],
                  },
                  { target: 'deciding' },
                ],
                onError: {
                  target: '#turn.closing',
                  actions: [
                    { type: 'recordFailure', params: ({ event }) => ({ error: event.error }) },
                    { type: 'reportFailure', params: { origin: Seam.turnStop } },
                  ],
                },
              },
            },
            deciding: {
              // Pending steering overrides a stop.
              always: [
                bail,
                { guard: 'shouldContinue', target: '#turn.open.step', reenter: true },
                { target: '#turn.closing' },
              ],
            },
          },
        },
        requestError: {
          always: [
            bail,
            {
              guard: { type: 'seamIsEmpty', params: { seam: Seam.requestError } },
              target: '#turn.closing',
              actions: [
                {
                  type: 'emitDefaultDecided',
                  params: { seam: Seam.requestError, decision: { action: 'fail' } },
                },
                'failRequest',
                { type: 'reportFailure', params: { origin: 'model' } },
              ],
            },
          ],
          invoke: {
            id: 'requestError',
            src: 'requestError',
            input: ({ context }): RequestErrorInput => ({
              ...seamInput({ context }),
              error: context.requestFailure ?? { message: 'The model request failed' },
              priorFailures: context.requestFailures - 1,
            }),
            onDone: [
              { guard: 'retryAllowed', target: 'step' },
              {
                target: '#turn.closing',
                actions: ['failRequest', { type: 'reportFailure', params: { origin: 'model' } }],
              },
            ],
            onError: {
              // A throwing recovery listener is reported and counts as `fail`.
              target: '#turn.closing',
              actions: [
                {
                  type: 'reportListenerFailure',
                  params: ({ event }) => ({ origin: Seam.requestError, error: event.error }),
                },
                'failRequest',
                { type: 'reportFailure', params: { origin: 'model' } },
              ],
            },
          },
        },
      },
    },
    closing: {
      entry: ['closeOpenStep', 'closeStep', 'settleReason', 'appendTurnEnd', 'notifyClosed'],
      always: 'flushing',
    },
    flushing: {
      invoke: {
        id: 'flushLog',
        src: 'flushLog',
        input: ({ context }) => ({ turn: context.turn }),
        onDone: 'done',
        // A failed flush is reported, never appended (the turn is closed).
        onError: {
          target: 'done',
          actions: { type: 'reportFlushFailure', params: ({ event }) => ({ error: event.error }) },
        },
      },
      on: {
        // turn/end is written: late steering is left over, late injections become injection turns.
        STEER: { actions: { type: 'pushSteering', params: ({ event }) => ({ item: event.item }) } },
        INJECT: {
          actions: { type: 'holdInjection', params: ({ event }) => ({ injection: event.injection }) },
        },
        CANCEL: {
          actions: { type: 'dropPendingSteering', params: ({ event }) => ({ keepInbox: event.keepInbox }) },
        },
      },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => ({
    reason: context.endReason ?? resolveTurnEndReason(context),
    leftoverSteering: context.steering,
    droppedSteering: context.dropped,
    terminalStopped: context.stop !== null,
    heldInjections: context.held,
  }),
});

/** A batch failure as the turn's failure: the batch's own appends are the turn's appends. */
function internalError(error: unknown): { message: string; code: 'INTERNAL_ERROR' } {
  return { message: toFailure(error).message, code: 'INTERNAL_ERROR' };
}

function blockReason(decision: PromptDecision): string {
  return decision.kind === 'block' ? decision.reason : '';
}

/** The blocking decision's own contexts (recorded in the rejected turn; nothing else of the prompt survives). */
function blockContexts(decision: PromptDecision): readonly HookContext[] {
  return decision.kind === 'block' ? (decision.additionalContexts ?? []) : [];
}

/** Tells the parent agent (if any) about ledger entries of steering the turn took on or ended. */
function reportSteering(
  self: AnyActorRef,
  type: TurnSteeringReport['type'],
  items: readonly InboxItem[],
): void {
  if (items.length === 0) return;
  const report: TurnSteeringReport = { type, ids: items.map((item) => item.id) };
  (self as { _parent?: AnyActorRef })._parent?.send(report);
}

function dropSteering(context: TurnContext, keepInbox: boolean): Partial<TurnContext> {
  return keepInbox ? {} : { steering: [], dropped: [...context.dropped, ...context.steering] };
}

/**
 * The turn machine with services bound (seams, model, log, tools and the toolBatch it invokes).
 * @param services the agent's services
 * @example
 * const turn = createActor(createTurnLogic(services), { input }).start();
 */
export function createTurnLogic(services: TurnMachineServices): typeof turnMachine {
  return provideTurnLogic(fixedServices(services), createToolBatchLogic(services));
}

/**
 * The turn logic shared by every agent: it finds its services through the actor system
 * (`createActorWithServices`), so the machine is provided once, not once per agent.
 */
export const sharedTurnLogic = once(() =>
  provideTurnLogic(servicesOfSystem<TurnMachineServices>, sharedToolBatchLogic()),
);

/**
 * The turn machine whose implementations resolve their services from their args.
 * @param servicesOf where the implementations find the agent's services
 * @param toolBatch the toolBatch logic the turn invokes
 */
export function provideTurnLogic(
  servicesOf: ServicesResolver<TurnMachineServices>,
  toolBatch: ReturnType<typeof createToolBatchLogic>,
): typeof turnMachine {
  return turnMachine.provide({
    actors: { ...createTurnActorsFor(servicesOf), toolBatch },
    actions: createTurnActionsFor(servicesOf),
    delays: { cancelGrace: ({ system }) => servicesOf({ system }).cancelGraceMs },
  });
}
