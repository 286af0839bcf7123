import { and } from 'xstate';
import type { CancelCause } from '../seams/index.js';
import { toDiscardEntries } from './agent/actions.js';
import { agentSetup } from './agent/setup.js';
import type { AgentContext, AgentEvent } from './agent/types.js';
import type { InboxItem } from './runtime/index.js';
import type { TurnInput } from './turn/index.js';

export { graphEvents } from './agent/graph.js';

/** The eventless edge every state has into `failed`. */
const STORE_FAILED_EDGE = { guard: 'storeFailed', target: '#agent.failed' } as const;

/** `DISPOSE` says whether pending items stay in the log for a resume. */
const KEEP_INBOX_ON_DISPOSE = {
  type: 'setKeepInboxOnDispose',
  params: ({ event }: { event: AgentEvent }) => ({ keepInbox: event.type === 'DISPOSE' && event.keepInbox }),
} as const;

/**
 * The agent statechart: one root actor per session; owns the inbox and claims one item per turn.
 * Its implementations find their services through the actor system; `createAgentLogic(services)` binds fixed ones.
 */
export const agentMachine = agentSetup.createMachine({
  id: 'agent',
  // Spelled out, not `{ ...input, … }`: a leading spread costs a hidden class per agent in V8 (decisions.md).
  context: ({ input }) => ({
    agentId: input.agentId,
    source: input.source,
    sessionStartPresent: input.sessionStartPresent,
    resumed: input.resumed,
    status: 'idle',
    // A resume starts with what the log shows accepted but never run.
    queued: input.resumed,
    current: null,
    held: [],
    pendingDiscard: [],
    discardLeftover: false,
    disposing: false,
    turnSteering: [],
    storeFailed: null,
    keepInboxOnDispose: false,
    suspension: input.suspension ?? 'none',
  }),
  // A failed write or fsync latches the store: from any state the agent moves to `failed`.
  on: {
    STORE_FAILED: {
      actions: { type: 'markStoreFailed', params: ({ event }) => ({ failure: event.failure }) },
    },
  },
  initial: 'starting',
  states: {
    starting: {
      // Awaited once before the first turn; it cannot veto and may only delay by sessionStartTimeout.
      // Like a turn seam (`machines.md`): without a listener, `check` skips it and no actor or timer is built.
      initial: 'check',
      states: {
        check: {
          // Without a listener there is nothing to wait for: `ready`'s routing, taken at once (one hop fewer).
          always: [
            STORE_FAILED_EDGE,
            // A suspended turn comes first: queued items wait until it ends.
            { guard: and(['sessionStartIsEmpty', 'isSuspended']), target: '#agent.suspended' },
            { guard: and(['sessionStartIsEmpty', 'hasWakingItem']), target: '#agent.running' },
            { guard: 'sessionStartIsEmpty', target: '#agent.idle' },
            'running',
          ],
        },
        running: {
          always: STORE_FAILED_EDGE,
          invoke: {
            id: 'sessionStart',
            src: 'sessionStart',
            input: ({ context }) => ({ agentId: context.agentId, source: context.source }),
            onDone: '#agent.ready',
            onError: {
              target: '#agent.ready',
              actions: { type: 'reportSessionStartFailure', params: ({ event }) => ({ error: event.error }) },
            },
          },
          after: { sessionStartTimeout: { target: '#agent.ready', actions: 'reportLateSessionStart' } },
          // A cancel ends the session start at once: leaving stops it (its signal aborts, hooks are killed).
          on: {
            CANCEL: [
              { guard: 'canDropQueue', target: '#agent.ready', actions: dropQueueNow() },
              {
                target: '#agent.ready',
                actions: {
                  type: 'notifyCancelRequested',
                  params: ({ event }) => ({ cause: causeOf(event) }),
                },
              },
            ],
          },
        },
      },
      on: {
        SEND: { actions: enqueueAs(false) },
        QUEUE: { actions: enqueueAs(false) },
        STEER: { actions: enqueueSteerAsMessage() },
        INJECT: {
          actions: { type: 'writeInjectionTurn', params: ({ event }) => ({ injection: event.injection }) },
        },
        CANCEL: { guard: 'canDropQueue', actions: dropQueueNow() },
        DISPOSE: { target: 'disposing', actions: KEEP_INBOX_ON_DISPOSE },
      },
    },
    ready: {
      always: [
        STORE_FAILED_EDGE,
        { guard: 'isSuspended', target: 'suspended' },
        { guard: 'hasWakingItem', target: 'running' },
        { target: 'idle' },
      ],
    },
    // The open turn waits for answers to deferred approvals (approvals.md): no turn actor runs, the log holds
    // all of it. RESUME (every request answered) re-enters the turn from the log; CANCEL ends it `aborted`.
    suspended: {
      always: [
        STORE_FAILED_EDGE,
        {
          guard: 'suspensionAnswered',
          target: '#agent.running.inTurn',
          actions: { type: 'openResumeScope', params: { cancel: null } },
        },
      ],
      entry: [
        { type: 'announceStatus', params: { status: 'suspended' } },
        { type: 'setStatus', params: { status: 'suspended' } },
      ],
      on: {
        // Messages wait for the suspended turn to end; steering is in the log for its next step.
        SEND: { actions: enqueueAs(false) },
        QUEUE: { actions: enqueueAs(false) },
        STEER: {
          actions: [
            { type: 'notifyEnqueue', params: ({ event }) => ({ item: itemOf(event), steering: true }) },
            // Its ledger entry is the suspended turn's, as for steering forwarded to an open turn.
            { type: 'holdSteering', params: ({ event }) => ({ ids: [itemOf(event).id] }) },
          ],
        },
        INJECT: {
          actions: { type: 'appendHeldContext', params: ({ event }) => ({ injection: event.injection }) },
        },
        RESUME: {
          target: '#agent.running.inTurn',
          actions: { type: 'openResumeScope', params: { cancel: null } },
        },
        CANCEL: {
          target: '#agent.running.inTurn',
          actions: [
            { type: 'notifyCancelRequested', params: ({ event }) => ({ cause: causeOf(event) }) },
            {
              type: 'recordDiscard',
              params: ({ context, event }) => ({
                ids: event.keepInbox ? [] : context.queued.map((item) => item.id),
                cause: 'cancel',
              }),
            },
            { type: 'deferQueueDiscard', params: ({ event }) => ({ keepInbox: event.keepInbox }) },
            {
              type: 'openResumeScope',
              params: ({ event }) => ({ cancel: { cause: causeOf(event), keepInbox: event.keepInbox } }),
            },
          ],
        },
        // The turn stays suspended on disk; a later agent resumes it (its steering too, unless dropped).
        DISPOSE: {
          target: 'disposing',
          actions: [
            KEEP_INBOX_ON_DISPOSE,
            {
              type: 'recordDiscard',
              params: ({ context, event }) => ({
                ids: event.keepInbox ? [] : context.turnSteering,
                cause: 'dispose',
              }),
            },
            { type: 'dropSuspendedSteering', params: ({ event }) => ({ keepInbox: event.keepInbox }) },
          ],
        },
      },
    },
    idle: {
      always: STORE_FAILED_EDGE,
      entry: [
        { type: 'announceStatus', params: { status: 'idle' } },
        { type: 'setStatus', params: { status: 'idle' } },
      ],
      on: {
        SEND: { target: 'running', actions: enqueueAs(false) },
        QUEUE: { actions: enqueueAs(false) },
        // Steering with no open turn is an ordinary waking message.
        STEER: { target: 'running', actions: enqueueSteerAsMessage() },
        INJECT: {
          actions: { type: 'writeInjectionTurn', params: ({ event }) => ({ injection: event.injection }) },
        },
        CANCEL: { guard: 'canDropQueue', actions: dropQueueNow() },
        DISPOSE: { target: 'disposing', actions: KEEP_INBOX_ON_DISPOSE },
      },
    },
    running: {
      always: STORE_FAILED_EDGE,
      entry: [
        { type: 'announceStatus', params: { status: 'running' } },
        { type: 'setStatus', params: { status: 'running' } },
      ],
      initial: 'claiming',
      on: {
        SEND: { actions: enqueueAs(false) },
        QUEUE: { actions: enqueueAs(false) },
        STEER: { actions: enqueueSteerAsMessage() },
      },
      states: {
        claiming: {
          // The only way into a turn: exactly one item, the head of the queue.
          entry: ['openTurnScope', 'claimHead', 'notifyDequeue'],
          always: 'inTurn',
        },
        inTurn: {
          invoke: {
            id: 'turn',
            src: 'turn',
            // `claiming` always set it: the state is only entered with a claimed item.
            input: ({ context, self }) => ({ ...(context.current as TurnInput), parent: self }),
            onDone: [
              {
                guard: 'isDisposing',
                target: '#agent.disposing',
                actions: [
                  'closeTurnScope',
                  { type: 'recordTurnDiscards', params: ({ event }) => ({ output: event.output }) },
                  { type: 'collectTurnOutput', params: ({ event }) => ({ output: event.output }) },
                  'writeHeldInjections',
                  'clearHeld',
                  'clearTurn',
                ],
              },
              {
                target: 'settling',
                actions: [
                  'closeTurnScope',
                  { type: 'recordTurnDiscards', params: ({ event }) => ({ output: event.output }) },
                  { type: 'collectTurnOutput', params: ({ event }) => ({ output: event.output }) },
                  'writeHeldInjections',
                  'clearHeld',
                  { type: 'discardItems', params: ({ context }) => ({ items: context.pendingDiscard }) },
                  'clearPendingDiscard',
                  'clearTurn',
                ],
              },
            ],
            onError: [
              {
                guard: 'isDisposing',
                target: '#agent.disposing',
                actions: [
                  'closeTurnScope',
                  { type: 'repairTurn', params: ({ event }) => ({ error: event.error }) },
                  'discardTurnSteering',
                  'clearTurn',
                ],
              },
              {
                target: 'settling',
                actions: [
                  'closeTurnScope',
                  { type: 'repairTurn', params: ({ event }) => ({ error: event.error }) },
                  'discardTurnSteering',
                  { type: 'discardItems', params: ({ context }) => ({ items: context.pendingDiscard }) },
                  'clearPendingDiscard',
                  'clearTurn',
                ],
              },
            ],
          },
          on: {
            // The turn suspended: stop it (the log holds what a resume needs); a disposal keeps it suspended.
            TURN_SUSPENDED: [
              { guard: 'isDisposing', target: '#agent.disposing', actions: ['closeTurnScope', 'clearTurn'] },
              {
                target: '#agent.suspended',
                actions: [
                  'closeTurnScope',
                  'clearTurn',
                  { type: 'setSuspension', params: { suspension: 'waiting' } },
                ],
              },
            ],
            // The turn's own inbox books (see `turnSteering`).
            STEERING_HELD: { actions: { type: 'holdSteering', params: ({ event }) => ({ ids: event.ids }) } },
            STEERING_ENDED: { actions: { type: 'endSteering', params: ({ event }) => ({ ids: event.ids }) } },
          },
          initial: 'open',
          states: {
            open: {
              on: {
                TURN_CLOSED: 'closed',
                STEER: {
                  actions: [
                    { type: 'notifyEnqueue', params: ({ event }) => ({ item: event.item, steering: true }) },
                    // Held even if the turn just died (not delivered): its onError then discards it.
                    { type: 'holdSteering', params: ({ event }) => ({ ids: [event.item.id] }) },
                    'forwardToTurn',
                  ],
                },
                INJECT: { actions: 'forwardToTurn' },
                CANCEL: {
                  actions: [
                    { type: 'notifyCancelRequested', params: ({ event }) => ({ cause: event.cause }) },
                    {
                      type: 'recordDiscard',
                      params: ({ context, event }) => ({
                        ids: event.keepInbox ? [] : context.queued.map((item) => item.id),
                        cause: 'cancel',
                      }),
                    },
                    { type: 'deferQueueDiscard', params: ({ event }) => ({ keepInbox: event.keepInbox }) },
                    'forwardToTurn',
                  ],
                },
                DISPOSE: { target: 'disposing', actions: KEEP_INBOX_ON_DISPOSE },
              },
            },
            closed: {
              // turn/end is written: steering becomes queued messages, injections wait for the done.
              on: {
                INJECT: {
                  actions: { type: 'holdInjection', params: ({ event }) => ({ injection: event.injection }) },
                },
                CANCEL: {
                  guard: 'canDropQueue',
                  actions: [
                    { type: 'notifyCancelRequested', params: ({ event }) => ({ cause: event.cause }) },
                    {
                      type: 'recordDiscard',
                      params: ({ context }) => ({
                        ids: context.queued.map((item) => item.id),
                        cause: 'cancel',
                      }),
                    },
                    { type: 'deferQueueDiscard', params: { keepInbox: false } },
                    'markDiscardLeftover',
                  ],
                },
                DISPOSE: { target: 'disposing', actions: KEEP_INBOX_ON_DISPOSE },
              },
            },
            disposing: {
              entry: ['markDisposing', 'cancelTurnForDisposal'],
              on: {
                INJECT: {
                  actions: { type: 'holdInjection', params: ({ event }) => ({ injection: event.injection }) },
                },
              },
            },
          },
        },
        settling: {
          // Message k+1 is claimed only now: turn k appended turn/end and its flush settled.
          always: [
            STORE_FAILED_EDGE,
            { guard: 'hasWakingItem', target: 'claiming' },
            { target: '#agent.idle' },
          ],
        },
      },
    },
    disposing: {
      always: STORE_FAILED_EDGE,
      entry: [
        // dispose({ keepInbox }) leaves queued items pending in the log, re-queued by the next resume.
        {
          type: 'recordDiscard',
          params: ({ context }) => ({
            ids: context.keepInboxOnDispose ? [] : context.queued.map((item) => item.id),
            cause: 'dispose',
          }),
        },
        {
          type: 'discardItems',
          params: ({ context }) => ({
            items: [
              ...context.pendingDiscard,
              ...(context.keepInboxOnDispose ? [] : toDiscardEntries(context.queued, false)),
            ],
          }),
        },
        'dropQueue',
        'clearPendingDiscard',
        { type: 'announceStatus', params: { status: 'disposed' } },
        { type: 'setStatus', params: { status: 'disposed' } },
        // Disposal ends after the last flush (injection turns flush on their own); no actor: decisions.md.
        'startSettle',
      ],
      on: {
        'settle.done': 'disposed',
        'settle.error': 'disposed',
        INJECT: {
          actions: { type: 'writeInjectionTurn', params: ({ event }) => ({ injection: event.injection }) },
        },
      },
    },
    disposed: { type: 'final' },
    // The store failed: the open turn was stopped without writing, queued items stay pending in the log.
    failed: {
      type: 'final',
      entry: [
        'closeTurnScope',
        { type: 'announceStatus', params: { status: 'failed' } },
        { type: 'setStatus', params: { status: 'failed' } },
      ],
    },
  },
});

function enqueueAs(steering: boolean) {
  return [
    { type: 'enqueue', params: ({ event }: { event: AgentEvent }) => ({ item: itemOf(event) }) },
    {
      type: 'notifyEnqueue',
      params: ({ event }: { event: AgentEvent }) => ({ item: itemOf(event), steering }),
    },
  ] as const;
}

function enqueueSteerAsMessage() {
  return enqueueAs(false);
}

function dropQueueNow() {
  return [
    {
      type: 'notifyCancelRequested',
      params: ({ event }: { event: AgentEvent }) => ({ cause: causeOf(event) }),
    },
    {
      type: 'recordDiscard',
      params: ({ context }: { context: AgentContext }) => ({
        ids: context.queued.map((item) => item.id),
        cause: 'cancel' as const,
      }),
    },
    {
      type: 'discardItems',
      params: ({ context }: { context: AgentContext }) => ({
        items: toDiscardEntries(context.queued, false),
      }),
    },
    'dropQueue',
  ] as const;
}

function itemOf(event: AgentEvent): InboxItem {
  if (event.type === 'SEND' || event.type === 'QUEUE' || event.type === 'STEER') return event.item;
  throw new TypeError(`Expected SEND, QUEUE or STEER, got ${event.type}`);
}

function causeOf(event: AgentEvent): CancelCause {
  return event.type === 'CANCEL' ? event.cause : { kind: 'user' };
}
