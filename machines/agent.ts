import { assign, fromPromise, setup } from 'xstate';
import type { AgentStatus, CancelCause } from '../seams/types.js';
import { createAgentActions, splitTurnLeftovers, toDiscardEntries } from './agent/actions.js';
import { createAgentActors, openTurnInput } from './agent/actors.js';
import type { AgentContext, AgentEvent, AgentInput, AgentMachineServices } from './agent/types.js';
import type { DiscardEntry, InboxItem, Injection } from './runtime/inbox.js';
import { sendToLiveChild } from './runtime/sendToLiveChild.js';
import type { TurnInput, TurnOutput } from './turn/types.js';
import { turnMachine } from './turn.js';

export { graphEvents } from './agent/graph.js';

const noop = (): void => {};

/** A placeholder turn input for the un-provided machine (graph traversal never runs the turn). */
function placeholderTurnInput(context: AgentContext, item: InboxItem): TurnInput {
  return {
    scopeKey: `${context.agentId}:turn`,
    agentId: context.agentId,
    turn: 1,
    item,
    seamsPresent: {
      'agent/prompt-submit': false,
      'agent/pre-step': false,
      'agent/post-step': false,
      'agent/request-error': false,
      'agent/turn-continuation': false,
      'agent/turn-stop': false,
    },
    maxRequestRetries: 3,
    maxParallel: 10,
  };
}

/**
 * The agent statechart: one root actor per session; owns the inbox and claims one item per turn.
 * Un-provided: bind services with `createAgentLogic(services)`.
 */
export const agentMachine = setup({
  types: {
    input: {} as AgentInput,
    context: {} as AgentContext,
    events: {} as AgentEvent,
  },
  actors: {
    sessionStart: fromPromise<void, { readonly agentId: string; readonly source: 'startup' | 'resume' }>(
      async () => {
        throw new Error(
          'agentMachine actor "sessionStart" is not provided; build the agent with createAgentLogic(services)',
        );
      },
    ),
    turn: turnMachine,
    settle: fromPromise<void, { readonly agentId: string }>(async () => {}),
  },
  actions: {
    // Side effects: no-ops here, bound to services by createAgentLogic.
    announceStatus: (_, _params: { status: AgentStatus }) => {},
    notifyEnqueue: (_, _params: { item: InboxItem; steering: boolean }) => {},
    notifyDequeue: noop,
    notifyCancelRequested: (_, _params: { cause: CancelCause }) => {},
    discardItems: (_, _params: { items: readonly DiscardEntry[] }) => {},
    writeInjectionTurn: (_, _params: { injection: Injection }) => {},
    writeHeldInjections: noop,
    closeTurnScope: noop,
    repairTurn: (_, _params: { error: unknown }) => {},
    reportLateSessionStart: noop,
    reportSessionStartFailure: (_, _params: { error: unknown }) => {},
    // Events for the turn are only sent from the states that invoke it, and only while it runs
    // (checked at delivery: a turn whose done event is still queued here takes nothing).
    forwardToTurn: ({ self, event }) => void sendToLiveChild(self, 'turn', event),
    cancelTurnForDisposal: ({ self }) =>
      void sendToLiveChild(self, 'turn', { type: 'CANCEL', cause: { kind: 'disposed' }, keepInbox: false }),
    // Context updates (pure, except `claimHead` once provided: it opens the turn's run scope).
    setStatus: assign({ status: (_, params: { status: AgentStatus }) => params.status }),
    enqueue: assign({
      queued: ({ context }, params: { item: InboxItem }) => [...context.queued, params.item],
    }),
    claimHead: assign(({ context }) => {
      const [item, ...rest] = context.queued;
      return { queued: rest, current: item ? placeholderTurnInput(context, item) : null };
    }),
    dropQueue: assign({ queued: [] }),
    deferQueueDiscard: assign(({ context }, params: { keepInbox: boolean }) =>
      params.keepInbox
        ? {}
        : {
            queued: [],
            pendingDiscard: [...context.pendingDiscard, ...toDiscardEntries(context.queued, false)],
          },
    ),
    markDiscardLeftover: assign({ discardLeftover: true }),
    markDisposing: assign({ disposing: true }),
    holdInjection: assign({
      held: ({ context }, params: { injection: Injection }) => [...context.held, params.injection],
    }),
    collectTurnOutput: assign(({ context }, params: { output: TurnOutput }) => {
      const { requeue, discard } = splitTurnLeftovers(context, params.output);
      return {
        queued: [...context.queued, ...requeue],
        pendingDiscard: discard,
        // The turn's late injections arrived before the agent saw TURN_CLOSED.
        held: [...params.output.heldInjections, ...context.held],
      };
    }),
    clearHeld: assign({ held: [] }),
    clearPendingDiscard: assign({ pendingDiscard: [] }),
    clearTurn: assign({ current: null, discardLeftover: false, turnSteering: [] }),
    holdSteering: assign({
      turnSteering: ({ context }, params: { ids: readonly string[] }) => [
        ...context.turnSteering,
        ...params.ids,
      ],
    }),
    endSteering: assign({
      turnSteering: ({ context }, params: { ids: readonly string[] }) =>
        context.turnSteering.filter((id) => !params.ids.includes(id)),
    }),
    // The turn died: the steering it still held is discarded with the rest of the pending discard.
    discardTurnSteering: assign(({ context }) => ({
      pendingDiscard: [
        ...context.pendingDiscard,
        ...context.turnSteering.map((id) => ({ id, steering: true })),
      ],
      turnSteering: [],
    })),
  },
  guards: {
    sessionStartIsEmpty: ({ context }) => !context.sessionStartPresent,
    hasWakingItem: ({ context }) => context.queued.some((item) => item.wakeup),
    canDropQueue: ({ context, event }) =>
      event.type === 'CANCEL' && !event.keepInbox && context.queued.length > 0,
    isDisposing: ({ context }) => context.disposing,
  },
  delays: {
    sessionStartTimeout: 60_000,
  },
}).createMachine({
  id: 'agent',
  context: ({ input }) => ({
    ...input,
    status: 'idle',
    queued: [],
    current: null,
    held: [],
    pendingDiscard: [],
    discardLeftover: false,
    disposing: false,
    turnSteering: [],
  }),
  initial: 'starting',
  states: {
    starting: {
      // Awaited once before the first turn; it cannot veto and may only delay by sessionStartTimeout.
      always: { guard: 'sessionStartIsEmpty', target: 'ready' },
      invoke: {
        id: 'sessionStart',
        src: 'sessionStart',
        input: ({ context }) => ({ agentId: context.agentId, source: context.source }),
        onDone: 'ready',
        onError: {
          target: 'ready',
          actions: { type: 'reportSessionStartFailure', params: ({ event }) => ({ error: event.error }) },
        },
      },
      after: { sessionStartTimeout: { target: 'ready', actions: 'reportLateSessionStart' } },
      on: {
        SEND: { actions: enqueueAs(false) },
        QUEUE: { actions: enqueueAs(false) },
        STEER: { actions: enqueueSteerAsMessage() },
        INJECT: {
          actions: { type: 'writeInjectionTurn', params: ({ event }) => ({ injection: event.injection }) },
        },
        CANCEL: { guard: 'canDropQueue', actions: dropQueueNow() },
        DISPOSE: 'disposing',
      },
    },
    ready: {
      always: [{ guard: 'hasWakingItem', target: 'running' }, { target: 'idle' }],
    },
    idle: {
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
        DISPOSE: 'disposing',
      },
    },
    running: {
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
          entry: ['claimHead', 'notifyDequeue'],
          always: 'inTurn',
        },
        inTurn: {
          invoke: {
            id: 'turn',
            src: 'turn',
            // `claiming` always set it: the state is only entered with a claimed item.
            input: ({ context }) => context.current as TurnInput,
            onDone: [
              {
                guard: 'isDisposing',
                target: '#agent.disposing',
                actions: [
                  'closeTurnScope',
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
                    { type: 'deferQueueDiscard', params: ({ event }) => ({ keepInbox: event.keepInbox }) },
                    'forwardToTurn',
                  ],
                },
                DISPOSE: 'disposing',
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
                    { type: 'deferQueueDiscard', params: { keepInbox: false } },
                    'markDiscardLeftover',
                  ],
                },
                DISPOSE: 'disposing',
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
          always: [{ guard: 'hasWakingItem', target: 'claiming' }, { target: '#agent.idle' }],
        },
      },
    },
    disposing: {
      entry: [
        {
          type: 'discardItems',
          params: ({ context }) => ({
            items: [...context.pendingDiscard, ...toDiscardEntries(context.queued, false)],
          }),
        },
        'dropQueue',
        'clearPendingDiscard',
        { type: 'announceStatus', params: { status: 'disposed' } },
        { type: 'setStatus', params: { status: 'disposed' } },
      ],
      invoke: {
        id: 'settle',
        src: 'settle',
        input: ({ context }) => ({ agentId: context.agentId }),
        onDone: 'disposed',
        onError: 'disposed',
      },
      on: {
        INJECT: {
          actions: { type: 'writeInjectionTurn', params: ({ event }) => ({ injection: event.injection }) },
        },
      },
    },
    disposed: { type: 'final' },
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

/**
 * The agent machine with services bound (session start, the turn logic, the inbox side effects).
 * @param services the agent's services
 * @example
 * const actor = createActor(createAgentLogic(services), { input: { agentId, source: 'startup', sessionStartPresent } });
 */
export function createAgentLogic(services: AgentMachineServices): typeof agentMachine {
  return agentMachine.provide({
    actors: createAgentActors(services),
    actions: {
      ...createAgentActions(services),
      claimHead: assign(({ context }) => {
        const [item, ...rest] = context.queued;
        return { queued: rest, current: item ? openTurnInput(services, item) : null };
      }),
    },
    delays: { sessionStartTimeout: services.sessionStartTimeoutMs },
  });
}
