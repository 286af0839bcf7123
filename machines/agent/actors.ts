import { fromPromise, type PromiseActorLogic } from 'xstate';
import type { LogEvent } from '../../kernel/index.js';
import type { InboxItem, ScopeTable, ServicesResolver } from '../runtime/index.js';
import { createReportingScope, trackSessionStartListener } from '../runtime/index.js';
import { type createTurnLogic, type ScopedTurnInput, type SeamsPresent, turnSeams } from '../turn/index.js';
import { agentDefaults } from './options.js';
import type { AgentMachineServices } from './types.js';

/** The number of the log's last opened turn (0 before the first). */
export function lastTurnNumber(events: readonly LogEvent[]): number {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index];
    if (event?.type === 'turn/start') return (event.data as { turn: number }).turn;
  }
  return 0;
}

/**
 * Opens the run scope of the turn that claims `item` and returns the turn's input: the listener
 * snapshot and a fresh turn signal are taken now, so a listener added mid-turn counts from the next turn.
 * @param services the agent's services
 * @param scopes the agent system's scope table
 * @param item the claimed inbox item
 */
export function openTurnInput(
  services: AgentMachineServices,
  scopes: ScopeTable,
  item: InboxItem,
): ScopedTurnInput {
  const seams = services.seams.snapshot(services.agentId);
  const approval = services.approval ?? services.seams.approval;
  const scopeKey = scopes.open(
    {
      seams,
      controller: new AbortController(),
      agent: services.agent,
      ...(approval === undefined ? {} : { approval }),
    },
    'turn',
  );
  // Written out (the same keys as `turnSeams`, in order): no pair arrays per turn.
  const seamsPresent: SeamsPresent = {
    'agent/prompt-submit': seams.has('agent/prompt-submit'),
    'agent/pre-step': seams.has('agent/pre-step'),
    'agent/post-step': seams.has('agent/post-step'),
    'agent/request-error': seams.has('agent/request-error'),
    'agent/turn-continuation': seams.has('agent/turn-continuation'),
    'agent/turn-stop': seams.has('agent/turn-stop'),
  };
  return {
    scopeKey,
    agentId: services.agentId,
    turn: lastTurnNumber(services.log.events) + 1,
    item,
    seamsPresent,
    maxRequestRetries: services.maxRequestRetries,
    maxParallel: services.maxParallelToolCalls,
    maxStepsPerTurn: services.maxStepsPerTurn ?? agentDefaults.maxStepsPerTurn,
  };
}

/**
 * The input of a turn for the queue's head item where no run is (graph traversal): no scope is opened,
 * no listener is present, the defaults apply.
 * @param agentId the agent's id
 * @param item the claimed inbox item
 */
export function unscopedTurnInput(agentId: string, item: InboxItem): ScopedTurnInput {
  return {
    scopeKey: `${agentId}:turn`,
    agentId,
    turn: 1,
    item,
    seamsPresent: Object.fromEntries(turnSeams.map((seam) => [seam, false])) as SeamsPresent,
    maxRequestRetries: agentDefaults.maxRequestRetries,
    maxParallel: agentDefaults.maxParallelToolCalls,
    maxStepsPerTurn: agentDefaults.maxStepsPerTurn,
  };
}

/** The actors `createAgentLogic` binds. */
export interface AgentActors {
  sessionStart: PromiseActorLogic<void, { readonly agentId: string; readonly source: 'startup' | 'resume' }>;
  turn: ReturnType<typeof createTurnLogic>;
}

/**
 * The actors of the agent, each resolving its services from its args (see `ServicesResolver`).
 * @param servicesOf where the actors find the agent's services
 * @param turn the turn logic the agent invokes
 */
export function createAgentActors(
  servicesOf: ServicesResolver<AgentMachineServices>,
  turn: AgentActors['turn'],
): AgentActors {
  return { sessionStart: createSessionStartActor(servicesOf), turn };
}

/**
 * The `agent/session-start` waterfall as a promise actor: it resolves once every listener settled.
 * @param servicesOf where the actor finds the agent's services
 */
export function createSessionStartActor(
  servicesOf: ServicesResolver<AgentMachineServices>,
): AgentActors['sessionStart'] {
  return fromPromise<void, { readonly agentId: string; readonly source: 'startup' | 'resume' }>(
    async ({ input, signal, system }) => {
      const services = servicesOf({ system });
      const { agentId } = services;
      const seams = services.seams.snapshot(agentId);
      await seams.awaitedNotify(
        'agent/session-start',
        { agent: services.agent, source: input.source, signal },
        {
          ...createReportingScope(services, agentId),
          signal,
          // Stops tracking once the agent moved on (timeout or disposal): the report names the late one.
          onListenerStart: (listener) => {
            if (!signal.aborted) trackSessionStartListener(services, listener);
          },
        },
      );
    },
  );
}
