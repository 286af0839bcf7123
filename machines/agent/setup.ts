import { assign, fromPromise, setup } from 'xstate';
import type { InboxDiscardCause } from '../../kernel/index.js';
import type { AgentStatus, CancelCause } from '../../seams/index.js';
import type { DiscardEntry, InboxItem, Injection } from '../runtime/index.js';
import { sendToLiveChild } from '../runtime/index.js';
import type { TurnInput, TurnOutput } from '../turn/index.js';
import { turnMachine } from '../turn.js';
import { splitTurnLeftovers, toDiscardEntries } from './actions.js';
import type { AgentContext, AgentEvent, AgentInput, StoreFailure } from './types.js';

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
    maxStepsPerTurn: 100,
  };
}

/** The agent machine's implementations: types, actors, named actions, guards and delays. */
export const agentSetup = setup({
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
  },
  actions: {
    // Side effects: no-ops here, bound to services by createAgentLogic.
    announceStatus: (_, _params: { status: AgentStatus }) => {},
    notifyEnqueue: (_, _params: { item: InboxItem; steering: boolean }) => {},
    notifyDequeue: noop,
    notifyCancelRequested: (_, _params: { cause: CancelCause }) => {},
    discardItems: (_, _params: { items: readonly DiscardEntry[] }) => {},
    recordDiscard: (_, _params: { ids: readonly string[]; cause: InboxDiscardCause }) => {},
    recordTurnDiscards: (_, _params: { output: TurnOutput }) => {},
    writeInjectionTurn: (_, _params: { injection: Injection }) => {},
    // While suspended, an inject() joins the suspended step's held contexts (`turn/held-context`).
    appendHeldContext: (_, _params: { injection: Injection }) => {},
    // Once provided, opens the resume's run scope and reads its input from the log (a cancel answers `cancelled` first).
    openResumeScope: (_, _params: { cancel: { cause: CancelCause; keepInbox: boolean } | null }) => {},
    writeHeldInjections: noop,
    closeTurnScope: noop,
    repairTurn: (_, _params: { error: unknown }) => {},
    reportLateSessionStart: noop,
    reportSessionStartFailure: (_, _params: { error: unknown }) => {},
    // Disposal's last flush: answers `settle.done` / `settle.error` once provided.
    startSettle: noop,
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
    // Once provided, opens the head item's run scope (the turn's listener snapshot and signal).
    openTurnScope: assign(({ context }) => {
      const [item] = context.queued;
      return { current: item ? placeholderTurnInput(context, item) : null };
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
});
