import { type ActorSystem, type AnyActorRef, enqueueActions } from 'xstate';
import type { InboxDiscardCause } from '../../kernel/index.js';
import { TurnFailureCode, toFailure } from '../../kernel/index.js';
import type { AgentStatus, CancelCause, NotifySeamName, SeamCtx } from '../../seams/index.js';
import type { SessionLog } from '../../session/index.js';
import { repairEvents, SessionLogError } from '../../session/index.js';
import type { DiscardEntry, InboxItem, Injection, ServicesResolver } from '../runtime/index.js';
import {
  agentReportingScope,
  liveHandlesOf,
  pendingSessionStartListener,
  sendToLive,
  servicesOfRun,
  trackSessionStartListener,
} from '../runtime/index.js';
import type { TurnOutput } from '../turn/index.js';
import { lastTurnNumber, openTurnInput, unscopedTurnInput } from './actors.js';
import { appendHeldContext, openResumeInput, type SuspensionCancel } from './resume.js';
import type { AgentContext, AgentEvent, AgentMachineServices } from './types.js';

interface Args {
  readonly context: AgentContext;
  readonly self: AnyActorRef;
  readonly system: ActorSystem<any>;
}

/** What a contained effect receives: its args with the services resolved. */
interface EffectArgs extends Args {
  readonly services: AgentMachineServices;
}

/** Flushes started by injection turns; `dispose()` waits for them (keyed by log). */
const pendingFlushes = new WeakMap<SessionLog, Set<Promise<void>>>();

/** Resolves once every injection-turn flush started so far has settled. */
async function settleInjectionFlushes(log: SessionLog): Promise<void> {
  const pending = pendingFlushes.get(log);
  while (pending && pending.size > 0) await Promise.allSettled([...pending]);
}

/** The number of the last `turn/start` in the log, 0 when there is none. */
/** Discard entries for queued (`steering: false`) or steering items. */
export function toDiscardEntries(items: readonly InboxItem[], steering: boolean): DiscardEntry[] {
  return items.map((item) => ({ id: item.id, steering }));
}

type Effect<TParams = unknown> = (args: Args, params: TParams) => void;

/** The agent machine's side-effect actions: its setup binds them to the system's services, `createAgentLogic` to fixed ones. */
export interface AgentActionImplementations {
  announceStatus: Effect<{ status: AgentStatus }>;
  notifyEnqueue: Effect<{ item: InboxItem; steering: boolean }>;
  notifyDequeue: Effect;
  notifyCancelRequested: Effect<{ cause: CancelCause }>;
  discardItems: Effect<{ items: readonly DiscardEntry[] }>;
  recordDiscard: Effect<{ ids: readonly string[]; cause: InboxDiscardCause }>;
  recordTurnDiscards: Effect<{ output: TurnOutput }>;
  writeInjectionTurn: Effect<{ injection: Injection }>;
  appendHeldContext: Effect<{ injection: Injection }>;
  writeHeldInjections: Effect;
  closeTurnScope: Effect;
  repairTurn: Effect<{ error: unknown }>;
  reportLateSessionStart: Effect;
  reportSessionStartFailure: Effect<{ error: unknown }>;
  startSettle: Effect;
}

/**
 * The side-effect actions of the agent, each resolving its services from its args (see `ServicesResolver`).
 * @param servicesOf where the actions find the agent's services
 */
export function createAgentActions(
  servicesOf: ServicesResolver<AgentMachineServices>,
): AgentActionImplementations {
  const notify = <TName extends NotifySeamName>(
    services: AgentMachineServices,
    name: TName,
    payload: SeamCtx<TName>,
  ) => services.seams.notify(name, payload, agentReportingScope(services));

  const contained =
    <TParams>(origin: string, effect: (args: EffectArgs, params: TParams) => void) =>
    (args: Args, params: TParams): void => {
      const services = servicesOf(args);
      try {
        // Spelled out, not `{ ...args, services }`: a leading spread costs a hidden class per call in V8.
        effect({ context: args.context, self: args.self, system: args.system, services }, params);
      } catch (error) {
        services.reportError({ error: toFailure(error), origin });
      }
    };

  /** Writes `turn/start{injection}`, `context/message`, `turn/end{completed}`, then a tracked flush. */
  const writeInjectionTurn = (
    services: AgentMachineServices,
    injection: Injection,
    self: AnyActorRef,
  ): void => {
    const { log } = services;
    const turn = lastTurnNumber(log.events) + 1;
    try {
      log.appendCore('turn/start', { turn, trigger: { kind: 'injection', source: injection.source } });
    } catch (error) {
      // inject() from inside a `session/event` listener: write the turn once that listener returned.
      if (!(error instanceof SessionLogError && error.code === 'REENTRANT_APPEND')) throw error;
      log.afterListeners(() => self.send({ type: 'INJECT', injection } satisfies AgentEvent));
      return;
    }
    const { content, source, meta } = injection;
    log.appendCore('context/message', {
      content: [...content],
      source,
      ...(meta === undefined ? {} : { meta }),
    });
    log.appendCore('turn/end', { turn, reason: { kind: 'completed' } });
    trackFlush(services, turn);
  };

  const trackFlush = (services: AgentMachineServices, turn: number): void => {
    const { log } = services;
    const pending = pendingFlushes.get(log) ?? new Set<Promise<void>>();
    pendingFlushes.set(log, pending);
    const flush: Promise<void> = log
      .flush()
      .catch((error: unknown) =>
        services.reportError({ error: toFailure(error), origin: 'session/flush', turn }),
      )
      .finally(() => pending.delete(flush));
    pending.add(flush);
  };

  return {
    announceStatus: contained('agent/status', ({ context, services }, params: { status: AgentStatus }) => {
      if (context.status !== params.status)
        notify(services, 'agent/status', { agentId: services.agentId, status: params.status });
    }),
    notifyEnqueue: contained(
      'agent/inbox/enqueue',
      ({ services }, params: { item: InboxItem; steering: boolean }) => {
        const { id, content, source, wakeup } = params.item;
        const { agentId } = services;
        notify(services, 'agent/inbox/enqueue', {
          agentId,
          id,
          content,
          source,
          steering: params.steering,
          wakeup,
        });
      },
    ),
    notifyDequeue: contained('agent/inbox/dequeue', ({ context, services }) => {
      if (context.current)
        notify(services, 'agent/inbox/dequeue', {
          agentId: services.agentId,
          id: context.current.item.id,
          steering: false,
        });
    }),
    notifyCancelRequested: contained(
      'agent/cancel-requested',
      ({ services }, params: { cause: CancelCause }) => {
        notify(services, 'agent/cancel-requested', { agentId: services.agentId, cause: params.cause });
      },
    ),
    discardItems: contained(
      'agent/inbox/discard',
      ({ services }, params: { items: readonly DiscardEntry[] }) => {
        if (params.items.length > 0)
          notify(services, 'agent/inbox/discard', { agentId: services.agentId, items: params.items });
      },
    ),
    // The durable inbox: a drop is on the log when it is decided (storage.md).
    recordDiscard: contained(
      'inbox/discarded',
      ({ services }, params: { ids: readonly string[]; cause: InboxDiscardCause }) =>
        appendDiscarded(services, params.ids, params.cause),
    ),
    recordTurnDiscards: contained(
      'inbox/discarded',
      ({ context, services }, params: { output: TurnOutput }) => {
        const { output } = params;
        const interrupted: InboxDiscardCause = context.disposing ? 'dispose' : 'cancel';
        const record = (items: readonly InboxItem[], cause: InboxDiscardCause) =>
          appendDiscarded(
            services,
            items.map((item) => item.id),
            cause,
          );
        record(output.droppedSteering, interrupted);
        if (dropsLeftover(context, output))
          record(output.leftoverSteering, output.terminalStopped ? 'terminal-stop' : interrupted);
      },
    ),
    writeInjectionTurn: contained('inject', ({ self, services }, params: { injection: Injection }) => {
      writeInjectionTurn(services, params.injection, self);
    }),
    appendHeldContext: contained('inject', ({ services }, params: { injection: Injection }) => {
      appendHeldContext(services, params.injection);
    }),
    writeHeldInjections: contained('inject', ({ context, self, services }) => {
      for (const injection of context.held) writeInjectionTurn(services, injection, self);
    }),
    closeTurnScope: contained('turn', ({ context, system }) => {
      if (context.current) liveHandlesOf(system).close(context.current.scopeKey);
    }),
    repairTurn: contained('turn', ({ context, services }, params: { error: unknown }) => {
      // The turn actor died: close what it left open with the crash-repair routine, then report it.
      const { log } = services;
      const failure = toFailure(params.error);
      const { events } = repairEvents(log.events, {
        reason: ({ step }) => ({
          kind: 'error',
          step,
          message: failure.message,
          code: TurnFailureCode.internalError,
        }),
      });
      for (const draft of events) log.appendCore(draft.type, draft.data);
      services.reportError({
        error: failure,
        origin: 'turn',
        ...(context.current ? { turn: context.current.turn } : {}),
      });
    }),
    reportLateSessionStart: contained('agent/session-start', ({ services }) => {
      const late = pendingSessionStartListener(services);
      trackSessionStartListener(services, undefined);
      const who = late === undefined ? 'listeners' : `listener "${late}"`;
      const message = `agent/session-start ${who} did not settle within ${services.sessionStartTimeoutMs} ms; the agent proceeded without ${late === undefined ? 'them' : 'it'}`;
      services.logger.error(message, { agentId: services.agentId, seam: 'agent/session-start' });
      services.reportError({
        error: { message, code: TurnFailureCode.sessionStartTimeout },
        origin: 'agent/session-start',
      });
    }),
    reportSessionStartFailure: contained(
      'agent/session-start',
      ({ services }, params: { error: unknown }) => {
        services.reportError({ error: toFailure(params.error), origin: 'agent/session-start' });
      },
    ),
    // Disposal's last flush, started on entering `disposing` (no actor); it answers the agent while it runs.
    startSettle: ({ self, system }) => {
      settleLog(servicesOf({ system }).log).then(
        () => sendToLive(self, { type: 'settle.done' }),
        (error: unknown) => sendToLive(self, { type: 'settle.error', error }),
      );
    },
  };
}

/** Resolves after the last flush: the injection turns' own, then the log's. */
async function settleLog(log: SessionLog): Promise<void> {
  await settleInjectionFlushes(log);
  await log.flush();
}

/** A finished turn's leftover steering is dropped (not re-queued) after a terminal stop, a cancel or a dispose. */
function dropsLeftover(context: AgentContext, output: TurnOutput): boolean {
  return output.terminalStopped || context.discardLeftover || context.disposing;
}

/** Appends `inbox/discarded` for `ids` (nothing for none): a drop is on the log when it is decided. */
function appendDiscarded(
  services: AgentMachineServices,
  ids: readonly string[],
  cause: InboxDiscardCause,
): void {
  if (ids.length > 0) services.log.appendCore('inbox/discarded', { ids: [...ids], cause });
}

/**
 * The agent's actions that open a turn's run scope while the transition resolves (enqueueActions), so
 * the scope exists before the turn starts; the assign each enqueues only records the turn's input.
 * @param servicesOf where the actions find the agent's services
 */
export function createAgentScopeActions(servicesOf: ServicesResolver<AgentMachineServices>) {
  return {
    // The one place a turn's live scope is opened: for the queue's head item.
    openTurnScope: enqueueActions<AgentContext, AgentEvent, unknown, AgentEvent, any, any, any, any, any>(
      ({ context, system, enqueue }) => {
        const [item] = context.queued;
        const services = servicesOfRun(servicesOf, system);
        const current =
          item === undefined
            ? null
            : services === undefined
              ? unscopedTurnInput(context.agentId, item)
              : openTurnInput(services, liveHandlesOf(system).scopes, item);
        enqueue.assign({ current });
      },
    ),
    // The resumed turn's input, read from the log; a cancel answers the pending requests `cancelled` first.
    openResumeScope: enqueueActions<
      AgentContext,
      AgentEvent,
      { cancel: SuspensionCancel | null },
      AgentEvent,
      any,
      any,
      any,
      any,
      any
    >(({ system, enqueue }, params) => {
      const services = servicesOfRun(servicesOf, system);
      if (services === undefined) return;
      const current = openResumeInput(services, liveHandlesOf(system).scopes, params.cancel);
      enqueue.assign({ current, suspension: 'none' });
    }),
  };
}

/** Which of a finished turn's items the agent re-queues and which it discards. */
export function splitTurnLeftovers(
  context: AgentContext,
  output: TurnOutput,
): { requeue: InboxItem[]; discard: DiscardEntry[] } {
  const dropLeftover = dropsLeftover(context, output);
  const leftover = output.leftoverSteering.map((item) => ({ ...item, wakeup: true }));
  return {
    requeue: dropLeftover ? [] : leftover,
    discard: [
      ...context.pendingDiscard,
      ...toDiscardEntries(output.droppedSteering, true),
      ...(dropLeftover ? toDiscardEntries(output.leftoverSteering, true) : []),
    ],
  };
}
