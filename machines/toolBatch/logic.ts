import type { ToolMachineServices } from '../runtime/index.js';
import { fixedServices, type ServicesResolver } from '../runtime/index.js';
import { toolBatchMachine } from '../toolBatch.js';
import { provideToolCallLogic } from '../toolCall/index.js';
import { createToolBatchActions } from './actions.js';
import { createToolBatchActors } from './actors.js';

/**
 * The toolBatch machine whose implementations resolve their services from their args.
 * @param servicesOf where the implementations find their services
 */
export function provideToolBatchLogic(
  servicesOf: ServicesResolver<ToolMachineServices>,
): typeof toolBatchMachine {
  return toolBatchMachine.provide({
    actors: createToolBatchActors(),
    actions: createToolBatchActions(servicesOf, provideToolCallLogic(servicesOf)),
  });
}

/**
 * The toolBatch machine with services bound: the log it appends to, the tool registry it classifies
 * with, and the toolCall logic it steps.
 * @param services the tool machine services (with `log`)
 * @example
 * const batch = createToolBatchLogic({ tools, seams, log, cancelGraceMs: 5_000 });
 * // Its input names a run scope opened in its system: liveHandlesOf(actor.system).scopes.openAs(key, scope)
 */
export function createToolBatchLogic(services: ToolMachineServices): typeof toolBatchMachine {
  return provideToolBatchLogic(fixedServices(services));
}
