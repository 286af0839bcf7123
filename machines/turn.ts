import { and } from 'xstate';
import { TurnFailureCode } from '../kernel/index.js';
import { Seam } from '../seams/index.js';
import {
  batchFailureOf,
  blockContexts,
  blockReason,
  continuationInputOf,
  defaultContinuation,
  defaultPromptDecision,
  initialTurnContext,
  promptSubmitInputOf,
  requestErrorInputOf,
  scopedTurnInput,
  seamInputOf,
  toolBatchInputOf,
  toTurnOutput,
} from './turn/rules.js';
import { turnSetup } from './turn/setup.js';
import type { TurnSeamName } from './turn/types.js';

export { graphEvents } from './turn/graph.js';

/**
 * The guard of an edge of a transient state that an append can lead into: taken only while nothing failed,
 * so a refused append leaves the state to `open`'s one failure edge before anything else is written
 * (decision 43).
 */
const unlessFailed = 'noFailure';

/** A seam state's skip to `target`: no listener, so its actor is never built (`machines.md`). */
const skip = (seam: TurnSeamName, target: string) =>
  ({ guard: { type: 'seamIsEmpty', params: { seam } }, target }) as const;

/** `skip`, for a `check` that an append can lead into: taken only while nothing failed (`unlessFailed`). */
const skipUnlessFailed = (seam: TurnSeamName, target?: string) =>
  ({ guard: and([unlessFailed, { type: 'seamIsEmpty', params: { seam } }]), target }) as const;

/**
 * A seam's `onError`: the throw is the turn's failure, reported once as coming from `origin`; `open`'s
 * failure edge then closes the turn.
 */
const failAt = (origin: string) => ({
  actions: [
    {
      type: 'recordFailure' as const,
      params: ({ event }: { event: { error: unknown } }) => ({ error: event.error }),
    },
    { type: 'reportFailure' as const, params: { origin } },
  ],
});

/** The request failed for good: its failure becomes the turn's, reported as the model's. */
const failTheRequest = ['failRequest', { type: 'reportFailure', params: { origin: 'model' } }] as const;

/** The batch failed (it reports a refused append, or it died): repair its calls, fail the turn (`error`). */
const repairBatch = {
  actions: [
    'repairCalls',
    { type: 'recordFailure', params: batchFailureOf },
    { type: 'reportFailure', params: { origin: 'toolBatch' } },
  ],
} as const;

/** The step's results are recorded: its FIFO follows them into the log. */
const flushStepFifo = ['appendStepFifo', 'clearStepFifo'] as const;

/**
 * The turn statechart: one claimed message from `turn/start` to `turn/end` and its flush. Each seam
 * state enters `check`, which skips an empty seam, and invokes the seam in `running` otherwise. The
 * model request and the flush are no actors: `startModelRequest`/`startLogFlush` start them on entry
 * and they answer `model.done`/`model.error`, `flush.done`/`flush.error`; leaving `requesting` stops
 * the request (`stopModelRequest`). Its implementations find their services through the actor system; `createTurnLogic(services)` binds fixed ones.
 */
export const turnMachine = turnSetup.createMachine({
  id: 'turn',
  context: ({ input, self }) => initialTurnContext(scopedTurnInput(input, self.sessionId)),
  // A turn with no run scope opens its own; a stopped actor runs no exit action: once stopped from
  // outside, its model request is aborted (and the scope it opened closed).
  entry: ['openScope', 'releaseOnStop'],
  initial: 'entering',
  states: {
    // A turn re-entered from the log starts in its step's `suspended` state and never writes turn/start again.
    entering: {
      always: [{ guard: 'resumes', target: '#turn.open.step.suspended.resuming' }, 'opening'],
    },
    opening: {
      // From turn/start on, turn/end is owed; the append confirms itself with TURN_OPENED.
      // No STEER/INJECT/CANCEL here: the turn leaves `opening` before start() returns, so none can arrive.
      entry: 'appendTurnStart',
      on: {
        TURN_OPENED: 'open',
        INTERNAL_ERROR: [
          // turn/start was refused: the claimed message is owed a turn, so it is written again once (a
          // refusal that holds is reported once, below).
          {
            guard: { type: 'mayRewrite', params: { write: 'turn/start' } },
            target: 'opening',
            reenter: true,
            actions: [{ type: 'markRewritten', params: { write: 'turn/start' } }],
          },
          // Refused again: nothing is owed, nothing more is written (a resume re-queues the message).
          {
            target: 'done',
            actions: [
              {
                type: 'recordFailure',
                params: ({ event }) => ({ error: { ...event.error, code: TurnFailureCode.internalError } }),
              },
              // Closed before the report: an agent/error listener's steer must find the agent past `open`.
              'notifyClosed',
              { type: 'reportFailure', params: { origin: 'turn' } },
              'settleReason',
            ],
          },
        ],
      },
    },
    open: {
      // The turn's one failure edge: a refused append (assigned in its own microstep, decision 43), a
      // seam or batch that failed, or a failed request closes the turn with `error`. It is taken when no
      // state below has an eventless edge of its own to take: transient states advance `unlessFailed`,
      // and prompt-submit and an interrupted post-step hold a failure until they answer.
      always: { guard: 'hasFailure', target: '#turn.closing' },
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
      },
      initial: 'promptSubmit',
      states: {
        promptSubmit: {
          on: {
            // Before its prompt is recorded a cancel also discards the claimed message, with the cancel.
            CANCEL: {
              target: '#turn.closing',
              actions: [
                { type: 'recordCancel', params: ({ event }) => event },
                {
                  type: 'discardUnrecordedPrompt',
                  params: ({ event }) => ({ cause: event.cause, keepInbox: event.keepInbox }),
                },
                'abortTurn',
              ],
            },
          },
          initial: 'check',
          states: {
            check: {
              always: [
                {
                  ...skip(Seam.promptSubmit, '#turn.open.step'),
                  actions: [
                    {
                      type: 'emitDefaultDecided',
                      params: ({ context }) => ({
                        seam: Seam.promptSubmit,
                        decision: defaultPromptDecision(context.input.item),
                      }),
                    },
                    {
                      type: 'recordPrompt',
                      params: ({ context }) => ({ decision: defaultPromptDecision(context.input.item) }),
                    },
                  ],
                },
                'running',
              ],
            },
            running: {
              invoke: {
                id: 'promptSubmit',
                src: 'promptSubmit',
                input: promptSubmitInputOf,
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
                          decidedBy: event.output.by,
                        }),
                      },
                      {
                        type: 'recordRejected',
                        params: ({ event }) => ({ reason: blockReason(event.output) }),
                      },
                    ],
                  },
                  {
                    target: '#turn.open.step',
                    actions: { type: 'recordPrompt', params: ({ event }) => ({ decision: event.output }) },
                  },
                ],
                // Direct: prompt-submit holds a failure (below), so `open`'s edge would not take this one.
                onError: { target: '#turn.closing', ...failAt(Seam.promptSubmit) },
              },
              // A failure while the prompt is decided (a refused injection) waits for the decision: the
              // prompt is recorded first, then `drainSteering` leaves to `open`'s failure edge.
              always: { guard: 'hasFailure' },
            },
          },
        },
        step: {
          entry: 'beginStep',
          initial: 'drainSteering',
          states: {
            drainSteering: {
              entry: ['recordSteering', 'reportSteeringEnded', 'clearSteering'],
              always: { guard: unlessFailed, target: 'preStep' },
            },
            preStep: {
              initial: 'check',
              states: {
                // Entered from `drainSteering` only, with nothing appended on the way: nothing failed here.
                check: {
                  always: [skip(Seam.preStep, '#turn.open.step.inFlight'), 'running'],
                },
                running: {
                  invoke: {
                    id: 'preStep',
                    src: 'preStep',
                    input: seamInputOf,
                    onDone: '#turn.open.step.inFlight',
                    onError: failAt(Seam.preStep),
                  },
                },
              },
            },
            inFlight: {
              // From step/start until the step's results are recorded, contexts wait in the step FIFO.
              on: {
                INJECT: {
                  actions: { type: 'pushStepFifo', params: ({ event }) => ({ contexts: [event.injection] }) },
                },
              },
              initial: 'requesting',
              states: {
                requesting: {
                  // The request starts here and is stopped when the state is left (no actor: decisions.md).
                  entry: ['openStep', 'appendStepStart', 'startModelRequest'],
                  exit: 'stopModelRequest',
                  on: {
                    'model.done': {
                      target: 'answered',
                      actions: [
                        { type: 'acceptAnswer', params: ({ event }) => ({ answer: event.output }) },
                        { type: 'recordAnswer', params: ({ event }) => ({ answer: event.output }) },
                      ],
                    },
                    'model.error': {
                      target: '#turn.open.requestError',
                      actions: [
                        { type: 'recordRequestFailure', params: ({ event }) => ({ error: event.error }) },
                        'appendStepFifo',
                        'appendStepEnd',
                        'closeStep',
                      ],
                    },
                  },
                },
                answered: {
                  always: [
                    { guard: and([unlessFailed, 'answerHasToolCalls']), target: 'tools' },
                    // No tool calls: the step's results are recorded, so its FIFO follows the answer now.
                    {
                      guard: unlessFailed,
                      target: '#turn.open.step.postBatchSteering',
                      actions: flushStepFifo,
                    },
                  ],
                },
                tools: {
                  initial: 'running',
                  // A resume is used once: by the batch it re-entered.
                  exit: 'clearResume',
                  invoke: {
                    id: 'toolBatch',
                    src: 'toolBatch',
                    input: toolBatchInputOf,
                    onDone: [
                      // An append of the batch failed: like a failed append of the turn, plus the repair.
                      { guard: 'batchFailed', ...repairBatch },
                      // Every call left waits for an answer: the step suspends with its FIFO held.
                      {
                        guard: 'batchSuspended',
                        target: '#turn.open.step.suspended',
                        actions: {
                          type: 'appendTurnSuspended',
                          params: ({ event }) => ({ output: event.output }),
                        },
                      },
                      { target: '#turn.open.step.postBatchSteering', actions: flushStepFifo },
                    ],
                    // The batch died: the same repair, then `open`'s failure edge closes the step and the turn.
                    onError: repairBatch,
                  },
                  on: {
                    CALL_COMMITTED: {
                      actions: {
                        type: 'pushStepFifo',
                        params: ({ event }) => ({ contexts: event.contexts }),
                      },
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
              },
            },
            // Waiting for answers to deferred approvals (approvals.md). The agent stops the turn here; a later
            // agent, in this process or another, starts a new turn actor in `resuming` from the log.
            suspended: {
              initial: 'recording',
              states: {
                // A refused turn/suspended suspends nothing: the step's open calls get repaired results, the
                // turn closes with the refusal (the agent never hears of a suspension).
                recording: {
                  always: [
                    { guard: 'hasFailure', target: '#turn.closing', actions: 'repairCalls' },
                    'waiting',
                  ],
                },
                waiting: {
                  entry: 'notifySuspended',
                  on: {
                    // Held for the resume: nothing of the step may be written now.
                    INJECT: {
                      actions: {
                        type: 'appendHeldContext',
                        params: ({ event }) => ({ injection: event.injection }),
                      },
                    },
                    CANCEL: {},
                  },
                },
                resuming: {
                  always: [
                    // A cancel of the suspension: the batch re-enters aborted and the turn ends `aborted`.
                    {
                      guard: 'resumeCancels',
                      target: '#turn.open.step.inFlight.tools',
                      actions: 'takeResume',
                    },
                    { target: 'recordingResume', actions: 'appendTurnResumed' },
                  ],
                },
                // A refused turn/resumed resumes nothing: the turn suspends again (reported), the next resume retries.
                recordingResume: {
                  always: [
                    { guard: 'hasFailure', target: 'waiting', actions: 'forgetRefusedResume' },
                    { target: '#turn.open.step.inFlight.tools', actions: 'takeResume' },
                  ],
                },
              },
            },
            postBatchSteering: {
              always: [
                // Steering is never drained into an aborted turn.
                { guard: and([unlessFailed, 'isCancelled']), target: 'abortedPostStep' },
                {
                  guard: unlessFailed,
                  target: 'postStep',
                  actions: ['markSteered', 'recordSteering', 'reportSteeringEnded', 'clearSteering'],
                },
              ],
            },
            postStep: {
              initial: 'check',
              states: {
                check: {
                  always: [
                    {
                      ...skipUnlessFailed(Seam.postStep, '#turn.open.step.continuation'),
                      actions: ['appendStepEnd', 'closeStep'],
                    },
                    { guard: unlessFailed, target: 'running' },
                  ],
                },
                running: {
                  invoke: {
                    id: 'postStep',
                    src: 'postStep',
                    input: seamInputOf,
                    onDone: {
                      target: '#turn.open.step.continuation',
                      actions: ['appendStepEnd', 'closeStep'],
                    },
                    onError: failAt(Seam.postStep),
                  },
                },
              },
            },
            abortedPostStep: {
              // Post-step runs once after a cancelled batch, with the aborted signal, bounded by cancelGrace.
              initial: 'check',
              onDone: '#turn.closing',
              states: {
                check: { always: [skip(Seam.postStep, 'over'), 'running'] },
                running: {
                  invoke: {
                    id: 'abortedPostStep',
                    src: 'postStep',
                    input: seamInputOf,
                    onDone: 'over',
                    // The turn is already interrupted; interruptions never emit agent/error.
                    onError: 'over',
                  },
                  after: { cancelGrace: 'over' },
                  // A failure meanwhile (a refused injection) waits for the post-step, as the cancel does.
                  always: { guard: 'hasFailure' },
                },
                over: { type: 'final' },
              },
            },
            continuation: {
              initial: 'check',
              states: {
                check: {
                  always: [
                    {
                      ...skipUnlessFailed(Seam.turnContinuation, '#turn.open.step.turnStop'),
                      actions: [
                        {
                          type: 'emitDefaultDecided',
                          params: ({ context }) => ({
                            seam: Seam.turnContinuation,
                            decision: defaultContinuation(context.thisStep),
                          }),
                        },
                        {
                          type: 'applyContinuation',
                          params: ({ context }) => ({ decision: defaultContinuation(context.thisStep) }),
                        },
                      ],
                    },
                    { guard: unlessFailed, target: 'running' },
                  ],
                },
                running: {
                  invoke: {
                    id: 'continuation',
                    src: 'continuation',
                    input: continuationInputOf,
                    onDone: {
                      target: '#turn.open.step.turnStop',
                      actions: [
                        { type: 'applyContinuation', params: ({ event }) => ({ decision: event.output }) },
                        'announceContinueReason',
                        'reportSteeringHeld',
                      ],
                    },
                    onError: failAt(Seam.turnContinuation),
                  },
                },
              },
            },
            turnStop: {
              initial: 'check',
              states: {
                // The edges from `continuation` append nothing (a continue reason is only notified).
                check: {
                  always: [skip(Seam.turnStop, '#turn.open.step.deciding'), 'running'],
                },
                running: {
                  invoke: {
                    id: 'turnStop',
                    src: 'turnStop',
                    input: seamInputOf,
                    onDone: [
                      {
                        // A stop is terminal: pending steering is discarded, later steering too (by the agent);
                        // `deciding` then closes the turn.
                        guard: 'stopReturned',
                        target: '#turn.open.step.deciding',
                        actions: [
                          { type: 'recordStop', params: ({ event }) => ({ output: event.output }) },
                          'discardSteering',
                          'reportSteeringEnded',
                          'clearSteering',
                        ],
                      },
                      '#turn.open.step.deciding',
                    ],
                    onError: failAt(Seam.turnStop),
                  },
                },
              },
            },
            deciding: {
              // Pending steering overrides a continuation's stop; a turn-stop's stop ends the turn; the step
              // cap is recorded once, then closes the edge back into `step`. Its last edge is unguarded:
              // a failure of a stop's discard closes the turn here, as `open`'s edge would.
              always: [
                {
                  guard: 'stepCapReached',
                  actions: [
                    'recordMaxSteps',
                    'discardContinueReason',
                    'reportContinueReasonEnded',
                    'dropContinueReason',
                  ],
                },
                { guard: 'shouldContinue', target: '#turn.open.step', reenter: true },
                '#turn.closing',
              ],
            },
          },
        },
        // A request that fails for good fails the turn: `open`'s failure edge closes it.
        requestError: {
          initial: 'check',
          states: {
            check: {
              always: [
                {
                  // The request fails: `open`'s failure edge closes the turn.
                  ...skipUnlessFailed(Seam.requestError),
                  actions: [
                    {
                      type: 'emitDefaultDecided',
                      params: { seam: Seam.requestError, decision: { action: 'fail' } },
                    },
                    ...failTheRequest,
                  ],
                },
                { guard: unlessFailed, target: 'running' },
              ],
            },
            running: {
              invoke: {
                id: 'requestError',
                src: 'requestError',
                input: requestErrorInputOf,
                onDone: [{ guard: 'retryAllowed', target: '#turn.open.step' }, { actions: failTheRequest }],
                onError: {
                  // A throwing recovery listener is reported and counts as `fail`.
                  actions: [
                    {
                      type: 'reportListenerFailure',
                      params: ({ event }) => ({ origin: Seam.requestError, error: event.error }),
                    },
                    ...failTheRequest,
                  ],
                },
              },
            },
          },
        },
      },
    },
    // The log is owed the open step's step/end and the turn/end: each refused one is written again once.
    closing: {
      initial: 'closingStep',
      states: {
        closingStep: {
          entry: ['dropRefusal', 'closeOpenStep'],
          always: [
            {
              guard: { type: 'rewriteOwed', params: { write: 'step/end' } },
              target: 'closingStep',
              reenter: true,
              actions: { type: 'markRewritten', params: { write: 'step/end' } },
            },
            { target: 'ending', actions: ['dropRefusal', 'closeStep', 'settleReason'] },
          ],
        },
        ending: {
          entry: ['dropRefusal', 'appendTurnEnd'],
          always: [
            {
              guard: { type: 'rewriteOwed', params: { write: 'turn/end' } },
              target: 'ending',
              reenter: true,
              actions: { type: 'markRewritten', params: { write: 'turn/end' } },
            },
            { target: '#turn.flushing', actions: 'notifyClosed' },
          ],
        },
      },
    },
    flushing: {
      entry: 'startLogFlush',
      on: {
        'flush.done': 'done',
        // A failed flush is reported, never appended (the turn is closed).
        'flush.error': {
          target: 'done',
          actions: { type: 'reportFlushFailure', params: ({ event }) => ({ error: event.error }) },
        },
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
    // A turn that opened its own run scope closes it.
    done: { type: 'final', entry: 'closeOwnScope' },
  },
  output: ({ context }) => toTurnOutput(context),
});
