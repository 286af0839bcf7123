import { type ActorSystem, fromPromise, type PromiseActorLogic } from 'xstate';
import type { ContinuationDecision, PromptDecision, RequestErrorDecision } from '../../kernel/index.js';
import { createDeltaRelay } from '../../model/deltaRelay.js';
import { evaluateInstructions } from '../../model/instructions.js';
import { createRequestDeriver, type RequestDeriver } from '../../model/request.js';
import { settingsForRequest } from '../../model/settings.js';
import type { ModelRequest } from '../../model/types.js';
import type { AgentHandle, DispatchScope, SeamSet } from '../../seams/types.js';
import type { SessionLog } from '../../session/types.js';
import { linkSignals } from '../../tools/signals.js';
import { liveHandlesOf } from '../runtime/liveHandles.js';
import { createReportingScope } from '../runtime/reportingScope.js';
import type { RunScope } from '../runtime/scopeTable.js';
import type { TurnMachineServices } from '../runtime/services.js';
import type { ServicesResolver } from '../runtime/systemServices.js';
import { type AcceptedAnswer, acceptModelStep, defaultPromptDecision } from './rules.js';
import type {
  ContinuationInput,
  ModelInput,
  PromptSubmitInput,
  RequestErrorInput,
  TurnSeamInput,
  TurnStopOutput,
} from './types.js';

// One incremental deriver per log, so a request costs only what was appended since the last one.
const derivers = new WeakMap<SessionLog, RequestDeriver>();

function deriverFor(log: SessionLog): RequestDeriver {
  let deriver = derivers.get(log);
  if (!deriver) {
    deriver = createRequestDeriver();
    derivers.set(log, deriver);
  }
  return deriver;
}

/** Where a turn's seam dispatch happens: agent filter, turn number, turn signal, contained-failure sink. */
export function turnDispatchScope(
  services: TurnMachineServices,
  scope: RunScope,
  input: { agentId: string; turn: number },
): DispatchScope {
  // A fresh object per call (createReportingScope), so setting its signal here touches nobody else's.
  const reporting = createReportingScope(services, input.agentId, input.turn);
  reporting.signal = scope.controller.signal;
  return reporting;
}

interface Resolved {
  readonly seams: SeamSet;
  readonly agent: AgentHandle;
  readonly signal: AbortSignal;
  readonly dispatch: DispatchScope;
}

function resolve(services: TurnMachineServices, system: ActorSystem<any>, input: TurnSeamInput): Resolved {
  const scope = liveHandlesOf(system).scopes.get(input.scopeKey);
  return {
    seams: scope.seams,
    agent: scope.agent ?? services.agent,
    signal: scope.controller.signal,
    dispatch: turnDispatchScope(services, scope, input),
  };
}

/** The actors `createTurnLogic` binds (the toolBatch comes from `createToolBatchLogic`). */
export interface TurnActors {
  promptSubmit: PromiseActorLogic<PromptDecision, PromptSubmitInput>;
  preStep: PromiseActorLogic<void, TurnSeamInput>;
  postStep: PromiseActorLogic<void, TurnSeamInput>;
  model: PromiseActorLogic<AcceptedAnswer, ModelInput>;
  requestError: PromiseActorLogic<RequestErrorDecision, RequestErrorInput>;
  continuation: PromiseActorLogic<ContinuationDecision, ContinuationInput>;
  turnStop: PromiseActorLogic<TurnStopOutput, TurnSeamInput>;
  flushLog: PromiseActorLogic<void, { readonly turn: number }>;
}

/**
 * The promise actors of the turn, each resolving its services from its args (see `ServicesResolver`).
 * @param servicesOf where the actors find the agent's services
 */
export function createTurnActors(servicesOf: ServicesResolver<TurnMachineServices>): TurnActors {
  return {
    promptSubmit: fromPromise<PromptDecision, PromptSubmitInput>(async ({ input, system }) => {
      const services = servicesOf({ system });
      const { seams, agent, signal, dispatch } = resolve(services, system, input);
      const { item, turn } = input;
      const ctx = { agent, turn, content: item.content, source: item.source, signal };
      const outcome = await seams.waterfall(
        'agent/prompt-submit',
        ctx,
        defaultPromptDecision(item),
        dispatch,
      );
      return outcome.decision;
    }),
    preStep: fromPromise<void, TurnSeamInput>(async ({ input, system }) => {
      const services = servicesOf({ system });
      const { seams, agent, signal, dispatch } = resolve(services, system, input);
      await seams.serial('agent/pre-step', { agent, turn: input.turn, step: input.step, signal }, dispatch);
    }),
    postStep: fromPromise<void, TurnSeamInput>(async ({ input, system }) => {
      const services = servicesOf({ system });
      const { seams, agent, signal, dispatch } = resolve(services, system, input);
      await seams.serial('agent/post-step', { agent, turn: input.turn, step: input.step, signal }, dispatch);
    }),
    model: fromPromise<AcceptedAnswer, ModelInput>(async ({ input, signal: actorSignal, system }) => {
      const services = servicesOf({ system });
      const { agent, signal: turnSignal, dispatch } = resolve(services, system, input);
      const { turn, step } = input;
      // Leaving `requesting` aborts the actor signal; a cancel aborts the turn signal: either stops the request.
      const link = linkSignals(actorSignal, turnSignal);
      const relay = createDeltaRelay(
        (delta) =>
          services.seams.notify('model/delta', { agentId: input.agentId, turn, step, delta }, dispatch),
        link.signal,
      );
      try {
        // Evaluated here, inside the request: a cancel leaves it at once, a throw is a request failure.
        const instructions = await evaluateInstructions(services.instructions, { agent, turn, step });
        const settings = settingsForRequest(services.modelSettings ?? {}, input.answered);
        const request: ModelRequest = {
          messages: deriverFor(services.log).derive(services.log.events),
          tools: services.tools.schemas(),
          signal: link.signal,
          onDelta: relay.onDelta,
          ...(instructions === undefined ? {} : { instructions }),
          ...(Object.keys(settings).length === 0 ? {} : { settings }),
        };
        const answer = acceptModelStep(await services.model.request(request));
        relay.settle(false);
        return answer;
      } catch (error) {
        relay.settle(true);
        throw error;
      } finally {
        // The turn signal outlives its requests: one listener per live request, none after.
        link.unlink();
      }
    }),
    requestError: fromPromise<RequestErrorDecision, RequestErrorInput>(async ({ input, system }) => {
      const services = servicesOf({ system });
      const { seams, agent, signal, dispatch } = resolve(services, system, input);
      const ctx = {
        agent,
        turn: input.turn,
        step: input.step,
        error: input.error,
        priorFailures: input.priorFailures,
        signal,
      };
      const outcome = await seams.waterfall('agent/request-error', ctx, { action: 'fail' }, dispatch);
      return outcome.decision;
    }),
    continuation: fromPromise<ContinuationDecision, ContinuationInput>(async ({ input, system }) => {
      const services = servicesOf({ system });
      const { seams, agent, signal, dispatch } = resolve(services, system, input);
      const { turn, step, defaultDecision } = input;
      const ctx = { agent, turn, step, defaultDecision, signal };
      const outcome = await seams.waterfall('agent/turn-continuation', ctx, defaultDecision, dispatch);
      return outcome.decision;
    }),
    turnStop: fromPromise<TurnStopOutput, TurnSeamInput>(async ({ input, system }) => {
      const services = servicesOf({ system });
      const { seams, agent, signal, dispatch } = resolve(services, system, input);
      return seams.firstResult('agent/turn-stop', { agent, turn: input.turn, signal }, dispatch);
    }),
    flushLog: fromPromise<void, { readonly turn: number }>(({ system }) =>
      servicesOf({ system }).log.flush(),
    ),
  };
}
