import { type ActionFunction, type ActorSystem, type AnyActorRef, enqueueActions } from 'xstate';
import type { HookContext, PromptDecision } from '../../kernel/index.js';
import { TurnFailureCode, toFailure } from '../../kernel/index.js';
import type {
  CancelCause,
  DispatchScope,
  NotifySeamName,
  SeamCtx,
  WaterfallSeamName,
} from '../../seams/index.js';
import { createDecidedNotice } from '../../seams/index.js';
import { repairEvents, SessionLogError, turnUsage } from '../../session/index.js';
import type { ServicesResolver, TurnMachineServices } from '../runtime/index.js';
import {
  createReportingScope,
  liveHandlesOf,
  servicesOfRun,
  whenStoppedFromOutside,
} from '../runtime/index.js';
import type { ToolBatchOutput } from '../toolBatch/index.js';
import type { AcceptedAnswer } from './rules.js';
import type { OwedWrite, TurnContext, TurnEvent } from './types.js';

type AnyActorSystem = ActorSystem<any>;

interface Args {
  readonly context: TurnContext;
  readonly self: AnyActorRef;
  readonly system: AnyActorSystem;
}

/** What a contained effect receives: its args with the services resolved. */
interface EffectArgs extends Args {
  readonly services: Services;
  /** How many units (events, items) the effect wrote before it was refused. */
  readonly progress: { written: number };
}

type Effect<TParams = unknown> = ActionFunction<
  TurnContext,
  TurnEvent,
  TurnEvent,
  TParams,
  any,
  any,
  any,
  any,
  any
>;
type Plain<TParams = unknown> = (args: Args, params: TParams) => void;

/** The turn machine's side-effect actions: its setup binds them to the system's services, `createTurnLogic` to fixed ones. */
export interface TurnActionImplementations {
  openScope: Effect;
  closeOwnScope: Plain;
  appendTurnStart: Plain;
  recordPrompt: Effect<{ decision: PromptDecision }>;
  recordBlocked: Effect<{ reason: string; contexts: readonly HookContext[] }>;
  emitDefaultDecided: Effect<{ seam: WaterfallSeamName; decision: unknown }>;
  recordSteering: Effect;
  appendStepStart: Effect;
  recordAnswer: Effect<{ answer: AcceptedAnswer }>;
  appendStepFifo: Effect;
  appendStepEnd: Effect;
  closeOpenStep: Effect;
  appendInjection: Effect<{ injection: HookContext }>;
  announceContinueReason: Effect;
  discardSteering: Effect;
  discardContinueReason: Effect;
  abortTurn: Effect;
  discardUnrecordedPrompt: Effect<{ cause: CancelCause; keepInbox: boolean }>;
  reportFailure: Effect<{ origin: string }>;
  reportListenerFailure: Effect<{ origin: string; error: unknown }>;
  repairCalls: Effect;
  appendTurnEnd: Effect;
  notifyClosed: Plain;
  releaseOnStop: Plain;
  appendTurnSuspended: Effect<{ output: unknown }>;
  appendTurnResumed: Effect;
  appendHeldContext: Effect<{ injection: HookContext }>;
  reportFlushFailure: Plain<{ error: unknown }>;
}

/** The part of `TurnMachineServices` the side-effect actions use. */
type Services = Pick<TurnMachineServices, 'log' | 'seams' | 'reportError' | 'agent' | 'approval'>;

/** A continuation reason's steering item id: stable, so the same run yields the same ids. */
export function continuationItemId(context: Pick<TurnContext, 'input' | 'step'>): string {
  return `${context.input.agentId}:t${context.input.turn}:s${context.step}:continue`;
}

/** A turn that opened its own run scope closes it (and every call handle under it); a closed one is fine. */
function closeOwnScope(context: TurnContext, system: AnyActorSystem): void {
  if (context.input.ownsScope) liveHandlesOf(system).close(context.input.scopeKey);
}

/** Whether `id` is one of this turn's continuation reasons (whatever step made it). */
function isContinuationItemId(context: Pick<TurnContext, 'input'>, id: string): boolean {
  const prefix = `${context.input.agentId}:t${context.input.turn}:s`;
  return id.startsWith(prefix) && /^\d+:continue$/.test(id.slice(prefix.length));
}

/**
 * The side-effect actions of the turn, each resolving its services from its args (see `ServicesResolver`).
 * @param servicesOf where the actions find the agent's services
 */
export function createTurnActions(servicesOf: ServicesResolver<Services>): TurnActionImplementations {
  const scopeOf = (services: Services, context: TurnContext): DispatchScope =>
    createReportingScope(services, context.input.agentId, context.input.turn);
  const notify = <TName extends NotifySeamName>(
    services: Services,
    name: TName,
    payload: SeamCtx<TName>,
    context: TurnContext,
  ) => services.seams.notify(name, payload, scopeOf(services, context));

  /**
   * Runs `effect`; a failure becomes the turn's failure (assigned in the same microstep), never a throw.
   * `onFailure` also records what the refused effect still owes, from how many units it wrote (`progress`).
   */
  const contained = <TParams>(
    effect: (args: EffectArgs, params: TParams) => void,
    onFailure: Partial<TurnContext> | ((context: TurnContext, written: number) => Partial<TurnContext>) = {},
  ) =>
    enqueueActions<TurnContext, TurnEvent, TParams, TurnEvent, any, any, any, any, any>(
      ({ context, self, system, enqueue }, params) => {
        const services = servicesOfRun(servicesOf, system);
        if (services === undefined) return;
        const progress = { written: 0 };
        try {
          effect({ context, self, system, services, progress }, params);
        } catch (error) {
          const failure = context.failure ?? {
            step: context.step,
            ...toFailure(error),
            code: TurnFailureCode.internalError,
          };
          const owed = typeof onFailure === 'function' ? onFailure(context, progress.written) : onFailure;
          enqueue.assign({ ...owed, failure });
          if (!context.failure)
            services.reportError({
              error: toFailure(error),
              origin: 'turn',
              turn: context.input.turn,
              step: context.step,
            });
        }
      },
    );

  /** What a refused owed write leaves in context: the write, still owed. */
  const refusedWrite = (context: TurnContext, write: OwedWrite): Partial<TurnContext> => ({
    refusals: { ...context.refusals, refused: write },
  });

  const appendContexts = (log: Services['log'], contexts: readonly HookContext[]): void => {
    for (const { content, source, meta } of contexts) {
      log.appendCore('context/message', {
        content: [...content],
        source,
        ...(meta === undefined ? {} : { meta }),
      });
    }
  };

  return {
    // The one place a turn's own run scope is opened (its input named none): the listener snapshot and
    // a fresh signal, as the agent opens one. Run while the transition resolves (enqueueActions), so it
    // exists before any child starts.
    openScope: enqueueActions<TurnContext, TurnEvent, unknown, TurnEvent, any, any, any, any, any>(
      ({ context, system }) => {
        const services = servicesOfRun(servicesOf, system);
        if (!context.input.ownsScope || services === undefined) return;
        const approval = services.approval ?? services.seams.approval;
        liveHandlesOf(system).scopes.openAs(context.input.scopeKey, {
          seams: services.seams.snapshot(context.input.agentId),
          controller: new AbortController(),
          agent: services.agent,
          ...(approval === undefined ? {} : { approval }),
        });
      },
    ),
    appendTurnStart: ({ context, self, system }: Args): void => {
      const { log } = servicesOf({ system });
      // Reported as an event: XState starts an initial state's children before its entry actions run,
      // so the turn leaves `opening` only once turn/start is really in the log.
      try {
        log.appendCore('turn/start', {
          turn: context.input.turn,
          // The claimed inbox item, as its inbox/accepted named it.
          trigger: { kind: 'message', source: context.input.item.source, itemId: context.input.item.id },
        });
      } catch (error) {
        self.send({ type: 'INTERNAL_ERROR', error: toFailure(error) } satisfies TurnEvent);
        return;
      }
      self.send({ type: 'TURN_OPENED' } satisfies TurnEvent);
    },
    recordPrompt: contained((args, params: { decision: PromptDecision }) => {
      const { item } = args.context.input;
      const { log } = args.services;
      if (params.decision.kind !== 'allow') return;
      const content = params.decision.content ?? [...item.content];
      // A rewrite names its author; letting the prompt through unchanged decides nothing.
      const rewrittenBy = params.decision.content === undefined ? undefined : params.decision.by;
      log.appendCore('user/message', {
        content,
        source: item.source,
        ...(item.meta === undefined ? {} : { meta: item.meta }),
        ...(rewrittenBy === undefined ? {} : { decidedBy: rewrittenBy }),
      });
      appendContexts(log, params.decision.additionalContexts ?? []);
    }),
    recordBlocked: contained(
      (
        { context, services },
        params: { reason: string; contexts: readonly HookContext[]; decidedBy?: string | undefined },
      ) => {
        const { content, source } = context.input.item;
        const { reason, decidedBy } = params;
        services.log.appendCore('prompt/blocked', {
          content: [...content],
          source,
          reason,
          ...(decidedBy === undefined ? {} : { decidedBy }),
        });
        appendContexts(services.log, params.contexts);
      },
    ),
    emitDefaultDecided: contained(
      ({ context, services }, params: { seam: WaterfallSeamName; decision: unknown }) => {
        const { agentId, turn } = context.input;
        const notice = createDecidedNotice(params.seam, 'default', params.decision, { agentId, turn });
        notify(services, 'seam/decided', notice, context);
      },
    ),
    // An item is dequeued once its steering/message is written; a refused one stays undrained (re-queued).
    recordSteering: contained(
      ({ context, services, progress }) => {
        const { log } = services;
        for (const item of context.steering) {
          log.appendCore('steering/message', {
            turn: context.input.turn,
            content: [...item.content],
            source: item.source,
            ...(item.meta === undefined ? {} : { meta: item.meta }),
            // A continuation's reason is no inbox item (no inbox/accepted): it names no item.
            ...(isContinuationItemId(context, item.id) ? {} : { itemId: item.id }),
            ...(item.decidedBy === undefined ? {} : { decidedBy: item.decidedBy }),
          });
          progress.written++;
          notify(
            services,
            'agent/inbox/dequeue',
            { agentId: context.input.agentId, id: item.id, steering: true },
            context,
          );
          appendContexts(log, item.contexts);
        }
      },
      (context, drained) => ({
        refusals: {
          ...context.refusals,
          undrained: [...context.refusals.undrained, ...context.steering.slice(drained)],
        },
      }),
    ),
    // `openStep` ran first: a refused step/start leaves no step to close.
    appendStepStart: contained(
      ({ context, services }) => {
        services.log.appendCore('step/start', { turn: context.input.turn, step: context.step });
      },
      { stepOpen: false },
    ),
    recordAnswer: contained(({ context, services }, params: { answer: AcceptedAnswer }) => {
      const { content, finish, usage } = params.answer;
      services.log.appendCore('assistant/message', {
        turn: context.input.turn,
        step: context.step,
        content,
        finish,
        ...(usage === undefined ? {} : { usage }),
      });
    }),
    appendStepFifo: contained(({ context, services }) => appendContexts(services.log, context.stepFifo)),
    // A refused step/end leaves the step open: closing writes it again (`closeStep` keeps it open).
    appendStepEnd: contained(
      ({ context, services }) => {
        services.log.appendCore('step/end', { turn: context.input.turn, step: context.step });
      },
      (context) => refusedWrite(context, 'step/end'),
    ),
    // The FIFO left unwritten stays for the rewrite, so nothing is written twice.
    closeOpenStep: contained(
      ({ context, services, progress }) => {
        if (!context.stepOpen) return;
        for (const entry of context.stepFifo) {
          appendContexts(services.log, [entry]);
          progress.written++;
        }
        services.log.appendCore('step/end', { turn: context.input.turn, step: context.step });
      },
      (context, written) => ({
        ...refusedWrite(context, 'step/end'),
        stepFifo: context.stepFifo.slice(written),
      }),
    ),
    appendInjection: contained(({ self, services }, params: { injection: HookContext }) => {
      try {
        appendContexts(services.log, [params.injection]);
      } catch (error) {
        // An inject() made from inside a `session/event` listener: append once that listener returned.
        if (!(error instanceof SessionLogError && error.code === 'REENTRANT_APPEND')) throw error;
        services.log.afterListeners(() =>
          self.send({ type: 'INJECT', injection: params.injection } satisfies TurnEvent),
        );
      }
    }),
    announceContinueReason: contained(({ context, services }) => {
      const item = context.steering.find((entry) => entry.id === continuationItemId(context));
      if (!item) return;
      notify(
        services,
        'agent/inbox/enqueue',
        {
          agentId: context.input.agentId,
          id: item.id,
          content: item.content,
          source: item.source,
          steering: true,
          wakeup: true,
        },
        context,
      );
    }),
    discardContinueReason: contained(({ context, services }) => {
      const id = continuationItemId(context);
      if (!context.steering.some((item) => item.id === id)) return;
      notify(
        services,
        'agent/inbox/discard',
        { agentId: context.input.agentId, items: [{ id, steering: true }] },
        context,
      );
    }),
    discardSteering: contained(({ context, services }) => {
      if (context.steering.length === 0) return;
      const items = context.steering.map((item) => ({ id: item.id, steering: true }));
      notify(services, 'agent/inbox/discard', { agentId: context.input.agentId, items }, context);
    }),
    abortTurn: contained(({ context, system }) => {
      liveHandlesOf(system)
        .scopes.get(context.input.scopeKey)
        .controller.abort(context.cancel ?? { kind: 'user' });
    }),
    // Cancelled before its prompt was recorded: the person did not ask for it to run later (storage.md,
    // "On resume"); a dispose keeps it for the resume unless the inbox is dropped with it.
    discardUnrecordedPrompt: contained(
      ({ context, services }, params: { cause: CancelCause; keepInbox: boolean }) => {
        const disposed = params.cause.kind === 'disposed';
        if (disposed && params.keepInbox) return;
        services.log.appendCore('inbox/discarded', {
          ids: [context.input.item.id],
          cause: disposed ? 'dispose' : 'cancel',
        });
      },
    ),
    reportFailure: contained(({ context, services }, params: { origin: string }) => {
      if (!context.failure) return;
      const { step, message, code } = context.failure;
      services.reportError({
        error: code === undefined ? { message } : { message, code },
        origin: params.origin,
        turn: context.input.turn,
        step,
      });
    }),
    reportListenerFailure: contained(({ context, services }, params: { origin: string; error: unknown }) => {
      services.reportError({
        error: toFailure(params.error),
        origin: params.origin,
        turn: context.input.turn,
        step: context.step,
      });
    }),
    repairCalls: contained(({ services }) => {
      const { log } = services;
      // The batch died: give its open calls synthetic results; closing still owes step/end and turn/end.
      const { events } = repairEvents(log.events, {
        message: 'The tool batch failed before this call recorded a result.',
      });
      for (const draft of events) {
        if (draft.type === 'tool/call' || draft.type === 'tool/result')
          log.appendCore(draft.type, draft.data);
      }
    }),
    // The turn is over either way: a refused turn/end is reported and owed (closing writes it again once).
    appendTurnEnd: enqueueActions<TurnContext, TurnEvent, unknown, TurnEvent, any, any, any, any, any>(
      ({ context, system, enqueue }) => {
        const services = servicesOfRun(servicesOf, system);
        if (!context.endReason || services === undefined) return;
        try {
          const usage = turnUsage(services.log.events);
          const reason = context.endReason;
          // The turn-stop seam's decider, else the listener whose continuation `stop` ended the turn.
          const decidedBy =
            reason.kind === 'completed' ? (context.stop?.decidedBy ?? context.thisStep.stoppedBy) : undefined;
          services.log.appendCore('turn/end', {
            turn: context.input.turn,
            reason,
            ...(usage ? { usage } : {}),
            ...(decidedBy === undefined ? {} : { decidedBy }),
          });
        } catch (error) {
          enqueue.assign(refusedWrite(context, 'turn/end'));
          services.reportError({ error: toFailure(error), origin: 'turn/end', turn: context.input.turn });
        }
      },
    ),
    appendTurnSuspended: contained(({ context, services }, params: { output: unknown }) => {
      const { suspended } = params.output as ToolBatchOutput;
      if (!suspended) return;
      services.log.appendCore('turn/suspended', {
        turn: context.input.turn,
        step: context.step,
        pending: [...suspended.pending],
        held: [...suspended.held],
        notStarted: [...suspended.notStarted],
        contexts: context.stepFifo.map((entry) => ({ ...entry, content: [...entry.content] })),
      });
    }),
    appendTurnResumed: contained(({ context, services }) => {
      services.log.appendCore('turn/resumed', { turn: context.input.turn, step: context.step });
    }),
    appendHeldContext: contained(({ context, services }, params: { injection: HookContext }) => {
      const { content, source, meta } = params.injection;
      services.log.appendCore('turn/held-context', {
        turn: context.input.turn,
        step: context.step,
        context: { content: [...content], source, ...(meta === undefined ? {} : { meta }) },
      });
    }),
    releaseOnStop: ({ system, self }: Args): void =>
      whenStoppedFromOutside(self, (context: TurnContext) => {
        liveHandlesOf(system).scopes.stopRequest(context.input.scopeKey);
        closeOwnScope(context, system);
      }),
    closeOwnScope: ({ context, system }: Args): void => closeOwnScope(context, system),
    notifyClosed: ({ context }: Args): void => {
      // A turn run on its own (tests, tools) has no parent to tell.
      context.input.parent?.send({ type: 'TURN_CLOSED' });
    },
    reportFlushFailure: ({ context, system }: Args, params: { error: unknown }): void => {
      servicesOf({ system }).reportError({
        error: toFailure(params.error),
        origin: 'session/flush',
        turn: context.input.turn,
      });
    },
  };
}
