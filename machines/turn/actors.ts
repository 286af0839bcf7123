import { type ActorSystem, fromPromise, type PromiseActorLogic } from 'xstate';
import type { ContinuationDecision, PromptDecision, RequestErrorDecision } from '../../kernel/index.js';
import type { AgentHandle, DispatchScope, SeamSet } from '../../seams/index.js';
import { deciderOf } from '../../seams/index.js';
import type { RunScope, ServicesResolver, TurnMachineServices } from '../runtime/index.js';
import { createReportingScope, liveHandlesOf } from '../runtime/index.js';
import { defaultPromptDecision } from './rules.js';
import type {
  ContinuationInput,
  PromptSubmitInput,
  RequestErrorInput,
  TurnSeamInput,
  TurnStopOutput,
} from './types.js';

/** Where a turn's seam dispatch happens: agent filter, turn number, turn signal, contained-failure sink. */
function turnDispatchScope(
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
  return { seams: scope.seams, signal: scope.controller.signal, ...resolveInScope(services, scope, input) };
}

/** Who a turn's seam call or model request speaks for, and its dispatch scope, from the run scope it holds. */
export function resolveInScope(
  services: TurnMachineServices,
  scope: RunScope,
  input: { agentId: string; turn: number },
): { readonly agent: AgentHandle; readonly dispatch: DispatchScope } {
  return { agent: scope.agent ?? services.agent, dispatch: turnDispatchScope(services, scope, input) };
}

/** The seam actors `createTurnLogic` binds (the toolBatch comes from `createToolBatchLogic`). */
export interface TurnActors {
  promptSubmit: PromiseActorLogic<PromptDecision, PromptSubmitInput>;
  preStep: PromiseActorLogic<void, TurnSeamInput>;
  postStep: PromiseActorLogic<void, TurnSeamInput>;
  requestError: PromiseActorLogic<RequestErrorDecision, RequestErrorInput>;
  continuation: PromiseActorLogic<ContinuationDecision, ContinuationInput>;
  turnStop: PromiseActorLogic<TurnStopOutput, TurnSeamInput>;
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
      return attributed(outcome);
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
      return attributed(outcome);
    }),
    turnStop: fromPromise<TurnStopOutput, TurnSeamInput>(async ({ input, system }) => {
      const services = servicesOf({ system });
      const { seams, agent, signal, dispatch } = resolve(services, system, input);
      return seams.firstResult('agent/turn-stop', { agent, turn: input.turn, signal }, dispatch);
    }),
  };
}

// A listener's decision carries its decider (`by`), so the action that records it can name it in the log.
function attributed<TDecision extends { readonly by?: string | undefined }>(outcome: {
  readonly decision: TDecision;
  readonly decidedBy: string;
}): TDecision {
  const by = deciderOf(outcome);
  return by === undefined || outcome.decision.by === by ? outcome.decision : { ...outcome.decision, by };
}
