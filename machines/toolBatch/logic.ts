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
 * with, and the toolCall logic it steps. A batch whose input names no `scopeKey` opens its own run
 * scope in its actor system (and closes it when it stops); it needs nothing opened first.
 * @param services the tool machine services (with `log`)
 * @example
 * const batch = createToolBatchLogic({ tools, seams, log, cancelGraceMs: 5_000 });
 * const actor = createActor(batch, { input: { turn: 1, step: 1, calls, maxParallel: 4 } }).start();
 * const { aborted } = await toPromise(actor); // log: tool/call and tool/result per call
 */
export function createToolBatchLogic(services: ToolMachineServices): typeof toolBatchMachine {
  return provideToolBatchLogic(fixedServices(services));
}
