import type { TurnMachineServices } from '../runtime/index.js';
import { fixedServices, type ServicesResolver } from '../runtime/index.js';
import { provideToolBatchLogic } from '../toolBatch/index.js';
import { turnMachine } from '../turn.js';
import { createTurnActions } from './actions.js';
import { createTurnActors } from './actors.js';
import { createTurnPhases } from './phases.js';

/**
 * The turn machine whose implementations resolve their services from their args.
 * @param servicesOf where the implementations find the agent's services
 */
export function provideTurnLogic(servicesOf: ServicesResolver<TurnMachineServices>): typeof turnMachine {
  return turnMachine.provide({
    actors: { ...createTurnActors(servicesOf), toolBatch: provideToolBatchLogic(servicesOf) },
    actions: { ...createTurnActions(servicesOf), ...createTurnPhases(servicesOf) },
    delays: { cancelGrace: ({ system }) => servicesOf({ system }).cancelGraceMs },
  });
}

/**
 * The turn machine with services bound (seams, model, log, tools and the toolBatch it invokes). A turn
 * whose input names no `scopeKey` opens its own run scope in its actor system (and closes it when it
 * ends); it needs nothing opened first.
 * @param services the agent's services
 * @example
 * const turn = createActor(createTurnLogic(services), {
 *   input: { agentId: 'a1', turn: 1, item, seamsPresent, maxRequestRetries: 3, maxParallel: 10, maxStepsPerTurn: 100 },
 * }).start();
 * const { reason } = await toPromise(turn); // log: turn/start … turn/end
 */
export function createTurnLogic(services: TurnMachineServices): typeof turnMachine {
  return provideTurnLogic(fixedServices(services));
}
