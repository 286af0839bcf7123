import { agentMachine } from '../agent.js';
import { fixedServices, once, type ServicesResolver, servicesOfSystem } from '../runtime/index.js';
import { provideTurnLogic } from '../turn/index.js';
import { createAgentActions, createAgentScopeActions } from './actions.js';
import { createAgentActors } from './actors.js';
import type { AgentMachineServices } from './types.js';

/**
 * The agent machine whose implementations resolve their services from their args (session start,
 * the turn logic, the inbox side effects).
 * @param servicesOf where the implementations find the agent's services
 */
export function provideAgentLogic(servicesOf: ServicesResolver<AgentMachineServices>): typeof agentMachine {
  return agentMachine.provide({
    actors: createAgentActors(servicesOf, provideTurnLogic(servicesOf)),
    actions: { ...createAgentActions(servicesOf), ...createAgentScopeActions(servicesOf) },
    delays: { sessionStartTimeout: ({ system }) => servicesOf({ system }).sessionStartTimeoutMs },
  });
}

/**
 * The agent machine with services bound (session start, the turn logic, the inbox side effects).
 * @param services the agent's services
 * @example
 * const actor = createActor(createAgentLogic(services), { input: { agentId, source: 'startup', sessionStartPresent } });
 */
export function createAgentLogic(services: AgentMachineServices): typeof agentMachine {
  return provideAgentLogic(fixedServices(services));
}

/**
 * The agent logic every `createAgent` shares: each agent registers its services for its actor system
 * (`createActorWithServices`), so the four machines are provided once per process, not per agent.
 */
export const sharedAgentLogic = once(() => provideAgentLogic(servicesOfSystem<AgentMachineServices>));
