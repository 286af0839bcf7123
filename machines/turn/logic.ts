import type { ActorSystem } from 'xstate';
import { liveHandlesOf } from '../runtime/liveHandles.js';
import type { TurnMachineServices } from '../runtime/services.js';
import { releasingOnStop } from '../runtime/stopRelease.js';
import { fixedServices, type ServicesResolver } from '../runtime/systemServices.js';
import { provideToolBatchLogic } from '../toolBatch/logic.js';
import { turnMachine } from '../turn.js';
import { createTurnActions } from './actions.js';
import { createTurnActors } from './actors.js';
import { createTurnPhases } from './phases.js';
import type { TurnContext } from './types.js';

/**
 * The turn machine whose implementations resolve their services from their args.
 * @param servicesOf where the implementations find the agent's services
 */
export function provideTurnLogic(servicesOf: ServicesResolver<TurnMachineServices>): typeof turnMachine {
  const logic = turnMachine.provide({
    actors: { ...createTurnActors(servicesOf), toolBatch: provideToolBatchLogic(servicesOf) },
    actions: { ...createTurnActions(servicesOf), ...createTurnPhases(servicesOf) },
    delays: { cancelGrace: ({ system }) => servicesOf({ system }).cancelGraceMs },
  });
  // A stopped actor runs no exit action, so its stop event is where a request still running is aborted.
  return releasingOnStop(logic, (snapshot, system) => releaseStoppedTurn(snapshot.context, system));
}

/** A turn stopped from outside (its agent stopped) aborts its model request, as a stopped invoke did. */
function releaseStoppedTurn(context: TurnContext, system: ActorSystem<any>): void {
  liveHandlesOf(system).scopes.stopRequest(context.input.scopeKey);
}

/**
 * The turn machine with services bound (seams, model, log, tools and the toolBatch it invokes).
 * @param services the agent's services
 * @example
 * const turn = createActor(createTurnLogic(services), { input }).start();
 */
export function createTurnLogic(services: TurnMachineServices): typeof turnMachine {
  return provideTurnLogic(fixedServices(services));
}
