import type { ToolMachineServices } from '../runtime/index.js';
import { fixedServices, once, type ServicesResolver, servicesOfSystem } from '../runtime/index.js';
import { toolCallMachine } from '../toolCall.js';
import { createToolCallActions } from './actions.js';

/**
 * The toolCall machine with services bound (tools, seams, cancel grace). A call whose input carries
 * `call` opens its own run scope and handles in its actor system; it needs nothing opened first.
 * @param services the tool machine services
 * @example
 * const logic = createToolCallLogic({ tools, seams, cancelGraceMs: 5_000 });
 * const actor = createActor(logic, {
 *   input: { call: { callId: 'c1', name: 'echo', arguments: '{"text":"hi"}' } },
 * }).start();
 * const { result } = await toPromise(actor);
 */
export function createToolCallLogic(services: ToolMachineServices): typeof toolCallMachine {
  return provideToolCallLogic(fixedServices(services));
}

/**
 * The toolCall logic shared by every run: it finds its services through the actor system
 * (`createActorWithServices`), so the machine is provided once, not once per call.
 */
export const sharedToolCallLogic = once(() => provideToolCallLogic(servicesOfSystem<ToolMachineServices>));

/**
 * The toolCall machine whose implementations resolve their services from their args.
 * @param servicesOf where the implementations find their services
 */
export function provideToolCallLogic(
  servicesOf: ServicesResolver<ToolMachineServices>,
): typeof toolCallMachine {
  return toolCallMachine.provide({
    actions: createToolCallActions(servicesOf),
    delays: { cancelGrace: ({ system }) => servicesOf({ system }).cancelGraceMs },
  });
}
