import { assign } from 'xstate';
import { agentMachine } from '../agent.js';
import { once, type ServicesResolver, servicesOfSystem } from '../runtime/systemServices.js';
import { sharedTurnLogic } from '../turn.js';
import { createAgentActionsFor } from './actions.js';
import { createAgentActorsFor, openTurnInput } from './actors.js';
import type { AgentMachineServices } from './types.js';

/**
 * The agent machine whose implementations resolve their services from their args (session start,
 * the turn logic, the inbox side effects).
 * @param servicesOf where the implementations find the agent's services
 * @param turn the turn logic the agent invokes
 */
export function provideAgentLogic(
  servicesOf: ServicesResolver<AgentMachineServices>,
  turn: Parameters<typeof createAgentActorsFor>[1],
): typeof agentMachine {
  return agentMachine.provide({
    actors: createAgentActorsFor(servicesOf, turn),
    actions: {
      ...createAgentActionsFor(servicesOf),
      claimHead: assign(({ context, system }) => {
        const [item, ...rest] = context.queued;
        return { queued: rest, current: item ? openTurnInput(servicesOf({ system }), item) : null };
      }),
    },
    delays: { sessionStartTimeout: ({ system }) => servicesOf({ system }).sessionStartTimeoutMs },
  });
}

/**
 * The agent logic every `createAgent` shares: each agent registers its services for its actor system
 * (`createActorWithServices`), so the four machines are provided once per process, not per agent.
 */
export const sharedAgentLogic = once(() =>
  provideAgentLogic(servicesOfSystem<AgentMachineServices>, sharedTurnLogic()),
);
