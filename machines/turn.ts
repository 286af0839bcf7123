import { Seam } from '../seams/names.js';
import {
  blockContexts,
  blockReason,
  defaultContinuation,
  defaultPromptDecision,
  internalError,
  resolveTurnEndReason,
} from './turn/rules.js';
import { turnSetup } from './turn/setup.js';
import type {
  ContinuationInput,
  ModelInput,
  PromptSubmitInput,
  RequestErrorInput,
  ToolBatchInput,
  TurnContext,
  TurnSeamInput,
} from './turn/types.js';

export { graphEvents } from './turn/graph.js';

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
export const turnMachine = turnSetup.createMachine({
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
    maxSteps: false,
    answered: false,
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
                input: ({ context }): ModelInput => ({
                  ...seamInput({ context }),
                  answered: context.answered,
                }),
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
              // Pending steering overrides a stop; the step cap closes the edge back into `step`.
              always: [
                bail,
                {
                  guard: 'stepCapReached',
                  target: '#turn.closing',
                  actions: [
                    'recordMaxSteps',
                    'discardContinueReason',
                    'reportContinueReasonEnded',
                    'dropContinueReason',
                  ],
                },
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
