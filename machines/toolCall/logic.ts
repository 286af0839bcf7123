import type { ActorSystem } from 'xstate';
import { liveHandlesOf } from '../runtime/liveHandles.js';
import type { ToolMachineServices } from '../runtime/services.js';
import { releasingOnStop } from '../runtime/stopRelease.js';
import { fixedServices, once, type ServicesResolver, servicesOfSystem } from '../runtime/systemServices.js';
import { toolCallMachine } from '../toolCall.js';
import { closeOwnedCall, createToolCallActions } from './actions.js';
import type { ToolCallContext } from './types.js';

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
  const logic = toolCallMachine.provide({
    actions: createToolCallActions(servicesOf),
    delays: { cancelGrace: ({ system }) => servicesOf({ system }).cancelGraceMs },
  });
  // A stopped actor runs no exit action, so its stop event is where a phase still running is aborted.
  return releasingOnStop(logic, (snapshot, system) => releaseStoppedCall(snapshot.context, system));
}

/**
 * Releases what a call stopped mid-phase still holds: a call that opened its own handles closes them
 * and aborts its signal (and so the running phase); a batched call's phase is aborted and the batch closes the rest.
 */
function releaseStoppedCall(context: ToolCallContext, system: ActorSystem<any>): void {
  const handles = liveHandlesOf(system);
  if (context.owns !== 'nothing') {
    const controller = handles.calls.find(context.callKey)?.controller;
    closeOwnedCall(context, system);
    // The call is over: its signal, which its listeners and body hold, says so.
    controller?.abort();
    return;
  }
  handles.calls.stopPhase(context.callKey);
}
