import { and, not } from 'xstate';
import { toolCallSetup } from './toolCall/setup.js';

export { graphEvents } from './toolCall/graph.js';

/**
 * One tool call as a statechart: prepare → seal → pre-execute → approval → guards → dispatch →
 * (commit) → post-execute → finalize → `tools/result`. Its implementations find their services through the actor system; `createToolCallLogic` binds fixed ones.
 * No phase is an actor: a synchronous phase runs in `runPhase`, an asynchronous one is started by
 * `startPhase` on entry and stopped by `stopPhase` on exit; each sends `<phase>.done`/`<phase>.error` back.
 */
export const toolCallMachine = toolCallSetup.createMachine({
  id: 'toolCall',
  // Keys are unique per actor system: a call that opens itself keys its handles by its session id.
  context: ({ input, self }) => ({
    scopeKey: input.scopeKey ?? `${self.sessionId}:scope`,
    callKey: input.callKey ?? `${input.scopeKey ?? `${self.sessionId}:scope`}/${self.sessionId}`,
    request: input.callKey === undefined ? (input.call ?? null) : null,
    owns: input.callKey !== undefined ? 'nothing' : input.scopeKey === undefined ? 'scope' : 'call',
    batched: input.batched ?? false,
    turn: input.turn ?? null,
    step: input.step ?? null,
    callId: '',
    name: '',
    hasFinalizer: false,
    seamsPresent: {
      'tools/prepare': false,
      'tools/pre-execute': false,
      guard: false,
      'tools/execute': false,
      'tools/post-execute': false,
      'tools/result': false,
    },
    aborted: false,
    graceOver: false,
    prepared: false,
    recorded: false,
    skipPost: false,
    result: null,
    approval: {
      reason: null,
      askedBy: null,
      expiresAt: null,
      holdDispatch: input.holdDispatch ?? false,
      resume: input.resume ?? null,
    },
    contexts: { pre: [], body: [], post: [] },
  }),
  // A call without a `callKey` opens its own handles (and, without a `scopeKey`, its own scope); the
  // call's signal (aborted by ABORT or by the run's signal) comes back as ABORT.
  entry: ['openCall', 'watchAbort', 'releaseOnStop'],
  // The one abort handler of the waits before the body (pre-execute, approval, parked, held, guards, and
  // the wait for `tool/call`): a live call with an identity and no result settles ABORTED_BEFORE_DISPATCH.
  // Folding, a running body and the review handle ABORT themselves; anywhere else (before the call has an
  // identity, or once it has a result) an abort is only recorded: the result stays as settled.
  on: {
    ABORT: [
      {
        guard: 'abortSettlesBeforeDispatch',
        target: '.settled',
        actions: ['markAborted', 'startCancelGrace', 'abortCall', 'settleAbortedBeforeDispatch'],
      },
      { guard: 'isLive', actions: ['markAborted', 'startCancelGrace', 'abortCall'] },
    ],
    CANCEL_GRACE_OVER: { actions: 'markGraceOver' },
    RECORDED: { actions: 'markRecorded' },
  },
  initial: 'preparing',
  states: {
    // Read the request once, then let `tools/prepare` rewrite the input before any identity exists.
    preparing: {
      initial: 'detaching',
      states: {
        detaching: {
          entry: { type: 'runPhase', params: { phase: 'detach' } },
          on: {
            'detach.done': [
              {
                guard: { type: 'detachedAs', params: { outcome: 'invalid-args' } },
                target: '#toolCall.sealing',
                actions: ['recordDetach', 'settleInvalidArgs'],
              },
              {
                guard: { type: 'detachedAs', params: { outcome: 'pre-aborted' } },
                target: '#toolCall.sealing',
                actions: ['recordDetach', 'settleAbortedBeforeDispatch'],
              },
              // Standalone with no listener on prepare, pre-execute or the guards: straight to the body.
              {
                guard: 'standaloneSkipsToBody',
                target: '#toolCall.dispatching.running',
                actions: [
                  'recordDetach',
                  'sealCall',
                  { type: 'emitDefaultDecided', params: { seam: 'tools/pre-execute' } },
                  'markPrepared',
                ],
              },
              // A listener on tools/prepare and an input it may rewrite (not aborted meanwhile): fold it;
              // not when re-entering from the log: the input was prepared (and recorded) before the suspension.
              { guard: and([not('isResumed'), 'foldsInput']), target: 'folding', actions: 'recordDetach' },
              // Otherwise prepare is a skip (aborted: sealing records ABORTED_BEFORE_DISPATCH).
              { target: '#toolCall.sealing', actions: 'recordDetach' },
            ],
            'detach.error': { target: '#toolCall.sealing', actions: 'settlePipelineError' },
          },
        },
        folding: {
          entry: { type: 'startPhase', params: { phase: 'prepare' } },
          exit: 'stopPhase',
          on: {
            ABORT: {
              guard: 'isLive',
              target: '#toolCall.sealing',
              actions: ['markAborted', 'startCancelGrace', 'abortCall', 'settleAbortedBeforeDispatch'],
            },
            'prepare.done': [
              {
                guard: { type: 'preparedAs', params: { outcome: 'refused' } },
                target: '#toolCall.sealing',
                actions: 'settlePrepareRefusal',
              },
              { target: '#toolCall.sealing' },
            ],
            'prepare.error': { target: '#toolCall.sealing', actions: 'settlePipelineError' },
          },
        },
      },
    },
    // Identity is created once, from the effective input; the batch records `tool/call` from it.
    sealing: {
      entry: ['sealCall', 'reportPreparedInput'],
      always: [
        { guard: 'hasResult', target: 'settled' },
        { guard: 'isAborted', target: 'settled', actions: 'settleAbortedBeforeDispatch' },
        { guard: { type: 'resumesAs', params: { as: 'parked' } }, target: 'parked' },
        { guard: { type: 'resumesAs', params: { as: 'held' } }, target: 'held' },
        {
          guard: { type: 'seamIsEmpty', params: { seam: 'tools/pre-execute' } },
          target: 'guards',
          actions: { type: 'emitDefaultDecided', params: { seam: 'tools/pre-execute' } },
        },
        { target: 'preExecute' },
      ],
    },
    preExecute: {
      initial: 'deciding',
      states: {
        deciding: {
          entry: { type: 'startPhase', params: { phase: 'preExecute' } },
          exit: 'stopPhase',
          on: {
            'preExecute.done': [
              // Standalone, allowed, no guard listener: straight to the body (the guards are a skip and
              // there is no batch to tell).
              {
                guard: 'standaloneAllowedWithoutGuards',
                target: '#toolCall.dispatching.running',
                actions: ['recordPreDecision', 'markPrepared'],
              },
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
              { target: '#toolCall.notDispatched', actions: ['recordPreDecision', 'settleDenial'] },
            ],
            'preExecute.error': { target: '#toolCall.notDispatched', actions: 'settlePipelineError' },
          },
        },
      },
    },
    awaitingApproval: {
      entry: { type: 'startPhase', params: { phase: 'approval' } },
      exit: 'stopPhase',
      on: {
        'approval.done': [
          { guard: { type: 'approvalIs', params: { kind: 'granted' } }, target: 'guards' },
          // Someone answers later: the batch records the request and may suspend the turn.
          {
            guard: { type: 'approvalIs', params: { kind: 'deferred' } },
            target: 'parked.waiting',
            actions: ['recordDeferral', 'markPrepared', 'reportParked'],
          },
          {
            guard: { type: 'approvalIs', params: { kind: 'aborted' } },
            target: 'notDispatched',
            actions: ['markAborted', 'settleAbortedBeforeDispatch'],
          },
          { target: 'notDispatched', actions: 'settleDenial' },
        ],
        'approval.error': { target: 'notDispatched', actions: 'settlePipelineError' },
      },
    },
    // Deferred: waits for an answer recorded in the log; only a resumed turn brings it (approvals.md).
    parked: {
      initial: 'answered',
      states: {
        // Re-entered from the log with its answer: allowed goes on to guards, any other answer is a denial.
        answered: {
          always: [
            {
              guard: { type: 'parkedAnswerIs', params: { allows: false } },
              target: '#toolCall.notDispatched',
              actions: 'settleParkedDenial',
            },
            // The grant is consumed here: from now on the call runs as any other (and is held like any other).
            {
              guard: { type: 'parkedAnswerIs', params: { allows: true } },
              target: '#toolCall.guards',
              actions: 'clearResume',
            },
            { target: 'waiting', actions: ['markPrepared', 'reportParked'] },
          ],
        },
        waiting: {},
      },
    },
    // Allowed, but an earlier call of the batch is parked: waits before guards for the resume.
    held: {
      initial: 'entering',
      states: {
        entering: {
          always: [
            // Re-entered from the log: judged again from pre-execute (policy is evaluated when a call runs).
            {
              guard: { type: 'resumesAs', params: { as: 'held' } },
              target: '#toolCall.preExecute',
              actions: 'clearResume',
            },
            {
              target: 'waiting',
              actions: ['markPrepared', { type: 'reportToBatch', params: { report: 'HELD' } }],
            },
          ],
        },
        waiting: {},
      },
    },
    guards: {
      initial: 'checking',
      states: {
        checking: {
          always: [
            { guard: 'dispatchHeld', target: '#toolCall.held' },
            { guard: { type: 'seamIsEmpty', params: { seam: 'guard' } }, target: '#toolCall.dispatching' },
            { target: 'deciding' },
          ],
        },
        deciding: {
          entry: { type: 'runPhase', params: { phase: 'guards' } },
          on: {
            'guards.done': [
              { guard: 'guardDenied', target: '#toolCall.notDispatched', actions: 'settleDenial' },
              { target: '#toolCall.dispatching' },
            ],
            'guards.error': { target: '#toolCall.notDispatched', actions: 'settlePipelineError' },
          },
        },
      },
    },
    dispatching: {
      // The body runs from `running` on and may finish while draining; leaving dispatching stops it.
      exit: 'stopPhase',
      on: {
        'dispatch.done': [
          // Standalone with nothing to review: finalize at once (the commit and the empty review are skips).
          {
            guard: 'standaloneReviewIsEmpty',
            target: 'finalizing',
            actions: [
              'settleDispatched',
              { type: 'emitDefaultDecided', params: { seam: 'tools/post-execute' } },
            ],
          },
          // Standalone with a review: it commits itself, so settled has nothing to report or wait for.
          // (nothing skips its review: only an error skips post-execute, and the grace runs out only in draining).
          { guard: 'isStandalone', target: '#toolCall.postExecute.reviewing', actions: 'settleDispatched' },
          { target: 'settled', actions: 'settleDispatched' },
        ],
        'dispatch.error': { target: 'settled', actions: 'settlePipelineError' },
      },
      initial: 'reporting',
      states: {
        // Leaving guards frees the policy lane: the batch may start the next call.
        reporting: {
          always: [
            {
              guard: 'awaitsRecord',
              target: 'recording',
              actions: ['markPrepared', { type: 'reportToBatch', params: { report: 'PREPARED' } }],
            },
            {
              guard: 'isBatched',
              target: 'running',
              actions: ['markPrepared', { type: 'reportToBatch', params: { report: 'PREPARED' } }],
            },
            { target: 'running', actions: 'markPrepared' },
          ],
        },
        // Write-ahead: a batched call's body starts only once its `tool/call` is in the log; aborted
        // before that, nothing is dispatched.
        recording: {
          on: {
            RECORDED: { target: 'running', actions: 'markRecorded' },
          },
        },
        running: {
          entry: { type: 'startPhase', params: { phase: 'dispatch' } },
          on: {
            ABORT: {
              guard: 'isLive',
              target: 'draining',
              actions: ['markAborted', 'startCancelGrace', 'abortCall'],
            },
          },
        },
        // A started body is awaited after the abort, but only for the grace period.
        draining: {
          on: {
            CANCEL_GRACE_OVER: {
              target: '#toolCall.settled',
              actions: ['markGraceOver', 'settleDidNotStop'],
            },
          },
        },
      },
    },
    // The call ends before its body ran: denied (by pre-execute, an approval, a parked answer or the guards),
    // a policy phase threw, or the approval was aborted. Its result is set; it settles.
    notDispatched: {
      always: 'settled',
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
            // After the grace ran out (a body that did not stop): post-execute still runs, for one more grace.
            { guard: 'graceIsOver', target: 'reviewing', actions: 'startCancelGrace' },
            { target: 'reviewing' },
          ],
        },
        reviewing: {
          entry: { type: 'startPhase', params: { phase: 'postExecute' } },
          exit: 'stopPhase',
          on: {
            // Committed after an abort: the review gets what is left of the grace, not a new one;
            // committed after it ran out, the one more grace started on entry.
            CANCEL_GRACE_OVER: {
              target: '#toolCall.finalizing',
              actions: ['markGraceOver', 'abandonReview'],
            },
            ABORT: {
              guard: 'isLive',
              target: '#toolCall.finalizing',
              actions: ['markAborted', 'startCancelGrace', 'abortCall', 'abandonReview'],
            },
            'postExecute.done': { target: '#toolCall.finalizing', actions: 'applyReview' },
            'postExecute.error': { target: '#toolCall.finalizing', actions: 'settleReviewFailure' },
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
          entry: { type: 'runPhase', params: { phase: 'finalize' } },
          on: {
            'finalize.done': { target: '#toolCall.notifying', actions: 'applyFinalized' },
            'finalize.error': { target: '#toolCall.notifying', actions: 'settleFinalizeFailure' },
          },
        },
      },
    },
    notifying: {
      entry: 'notifyResult',
      always: 'done',
    },
    done: { type: 'final', entry: 'closeCall' },
  },
  output: ({ context }) => ({ callId: context.callId, result: context.result! }),
});
