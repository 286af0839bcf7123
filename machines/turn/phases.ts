import type { ActorSystem } from 'xstate';
import type { ModelRequest } from '../../model/index.js';
import {
  createDeltaRelay,
  createRequestDeriver,
  evaluateInstructions,
  type RequestDeriver,
  settingsForRequest,
} from '../../model/index.js';
import type { SessionLog } from '../../session/index.js';
import type { RunScope, ServicesResolver, TurnMachineServices } from '../runtime/index.js';
import { liveHandlesOf, sendToLive } from '../runtime/index.js';
import { resolveInScope } from './actors.js';
import { type AcceptedAnswer, acceptModelStep, modelInputOf } from './rules.js';
import type { ModelInput, TurnContext, TurnEvent } from './types.js';

type Self = {
  send(event: TurnEvent): void;
  getSnapshot(): { readonly status: string };
};
interface Args {
  readonly context: TurnContext;
  readonly event: TurnEvent;
  readonly self: Self;
  readonly system: ActorSystem<any>;
}

/** The turn's asynchronous phases as named actions (no actor each); see `turn.ts`. */
export interface TurnPhaseImplementations {
  startModelRequest: (args: Args) => void;
  stopModelRequest: (args: Args) => void;
  startLogFlush: (args: Args) => void;
}

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

/**
 * The turn's phases that wait on something outside it: each starts at its state's entry and sends
 * `<phase>.done {output}` / `<phase>.error {error}` back (decisions.md: "The turn's model request and
 * log flush are actions, not actors").
 * @param servicesOf where the phases find the agent's services
 */
export function createTurnPhases(
  servicesOf: ServicesResolver<TurnMachineServices>,
): TurnPhaseImplementations {
  return {
    // The step's request runs under its own controller, held by the turn's run scope; only the scope's
    // current request may answer (one left, or replaced by a newer one, is stale).
    startModelRequest: ({ context, self, system }: Args): void => {
      // A refused step/start: `bail` leaves at once, and nothing is asked (as an invoke stopped within its
      // own macrostep never starts).
      if (context.failure !== null) return;
      const scope = liveHandlesOf(system).scopes.get(context.input.scopeKey);
      const controller = new AbortController();
      scope.request = controller;
      // Defensive: the turn signal aborts only with a CANCEL, which leaves `requesting` and aborts this
      // request itself; a request never starts under a signal already aborted.
      const turnSignal = scope.controller.signal;
      if (turnSignal.aborted) controller.abort(turnSignal.reason);
      const settle = (event: TurnEvent): void => {
        if (scope.request !== controller) return;
        scope.request = undefined;
        sendToLive(self, event);
      };
      requestModel(servicesOf({ system }), scope, modelInputOf({ context }), controller.signal).then(
        (output) => settle({ type: 'model.done', output }),
        (error: unknown) => settle({ type: 'model.error', error }),
      );
    },
    // Leaving `requesting` stops a request still running; a CANCEL stops it with the cancel's cause, the
    // reason the turn signal aborts with right after.
    stopModelRequest: ({ context, event, system }: Args): void => {
      const reason = event.type === 'CANCEL' ? event.cause : undefined;
      liveHandlesOf(system).scopes.stopRequest(context.input.scopeKey, reason);
    },
    startLogFlush: ({ self, system }: Args): void => {
      let flushed: Promise<void>;
      try {
        flushed = servicesOf({ system }).log.flush();
      } catch (error) {
        flushed = Promise.reject(error);
      }
      flushed.then(
        () => sendToLive(self, { type: 'flush.done' }),
        (error: unknown) => sendToLive(self, { type: 'flush.error', error }),
      );
    },
  };
}

/** One model request of a step: instructions, the derived messages, deltas relayed while it is live. */
async function requestModel(
  services: TurnMachineServices,
  scope: RunScope,
  input: ModelInput,
  signal: AbortSignal,
): Promise<AcceptedAnswer> {
  const { turn, step } = input;
  const { agent, dispatch } = resolveInScope(services, scope, input);
  const relay = createDeltaRelay(
    (delta) => services.seams.notify('model/delta', { agentId: input.agentId, turn, step, delta }, dispatch),
    signal,
  );
  try {
    // Evaluated here, inside the request: a cancel leaves it at once, a throw is a request failure.
    const instructions = await evaluateInstructions(services.instructions, { agent, turn, step });
    const settings = settingsForRequest(services.modelSettings ?? {}, input.answered);
    const request: ModelRequest = {
      messages: deriverFor(services.log).derive(services.log.events),
      tools: services.tools.schemas(),
      signal,
      onDelta: relay.onDelta,
      ...(instructions === undefined ? {} : { instructions }),
      ...(Object.keys(settings).length === 0 ? {} : { settings }),
    };
    // Write-ahead: the request starts only once the log before it is committed (a PostgreSQL store).
    if (services.log.writesAsync) await services.log.barrier();
    const answer = acceptModelStep(await services.model.request(request));
    relay.settle(false);
    return answer;
  } catch (error) {
    relay.settle(true);
    throw error;
  }
}
