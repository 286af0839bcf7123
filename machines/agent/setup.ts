import { assign, setup } from 'xstate';
import type { AgentStatus } from '../../seams/index.js';
import type { InboxItem, Injection } from '../runtime/index.js';
import { sendToLiveChild, servicesOfSystem } from '../runtime/index.js';
import type { TurnOutput } from '../turn/index.js';
import { turnMachine } from '../turn.js';
import {
  createAgentActions,
  createAgentScopeActions,
  splitTurnLeftovers,
  toDiscardEntries,
} from './actions.js';
import { createSessionStartActor } from './actors.js';
import type { AgentContext, AgentEvent, AgentInput, AgentMachineServices, StoreFailure } from './types.js';

/** The agent machine's implementations: types, actors, named actions, guards and delays. */
export const agentSetup = setup({
  types: {
    input: {} as AgentInput,
    context: {} as AgentContext,
    events: {} as AgentEvent,
  },
  // The session-start actor, in ./actors.ts (it finds its services through the actor system), and the
  // turn machine as it is; createAgentLogic re-binds the same bodies to fixed services.
  actors: {
    sessionStart: createSessionStartActor(servicesOfSystem<AgentMachineServices>),
    turn: turnMachine,
  },
  actions: {
    // Events for the turn are only sent from the states that invoke it, and only while it runs
    // (checked at delivery: a turn whose done event is still queued here takes nothing).
    forwardToTurn: ({ self, event }) => void sendToLiveChild(self, 'turn', event),
    // dispose({ keepInbox }) reaches the turn: a kept inbox keeps its unrecorded prompt and steering pending.
    cancelTurnForDisposal: ({ context, self }) =>
      void sendToLiveChild(self, 'turn', {
        type: 'CANCEL',
        cause: { kind: 'disposed' },
        keepInbox: context.keepInboxOnDispose,
      }),
    // Context updates (pure).
    setStatus: assign({ status: (_, params: { status: AgentStatus }) => params.status }),
    enqueue: assign({
      queued: ({ context }, params: { item: InboxItem }) => [...context.queued, params.item],
    }),
    claimHead: assign({ queued: ({ context }) => context.queued.slice(1) }),
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
    // A disposal that drops the inbox drops the steering the suspended turn was holding too.
    dropSuspendedSteering: assign(({ context }, params: { keepInbox: boolean }) =>
      params.keepInbox
        ? {}
        : {
            pendingDiscard: [
              ...context.pendingDiscard,
              ...context.turnSteering.map((id) => ({ id, steering: true })),
            ],
            turnSteering: [],
          },
    ),
    setSuspension: assign({
      suspension: (_, params: { suspension: AgentContext['suspension'] }) => params.suspension,
    }),
    markStoreFailed: assign({ storeFailed: (_, params: { failure: StoreFailure }) => params.failure }),
    setKeepInboxOnDispose: assign({
      keepInboxOnDispose: (_, params: { keepInbox: boolean }) => params.keepInbox,
    }),
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
    storeFailed: ({ context }) => context.storeFailed !== null,
    isSuspended: ({ context }) => context.suspension !== 'none',
    suspensionAnswered: ({ context }) => context.suspension === 'answered',
  },
  delays: {
    sessionStartTimeout: 60_000,
  },
}).extend({
  // Side effects, in ./actions.ts: by default they find their services through the actor system
  // (createAgentLogic re-binds the same bodies to fixed services).
  actions: {
    ...createAgentActions(servicesOfSystem<AgentMachineServices>),
    ...createAgentScopeActions(servicesOfSystem<AgentMachineServices>),
  },
});
