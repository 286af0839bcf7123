import { describeThrown } from '../../seams/describe.js';
import type { JsonValue } from '../../seams/schemas.js';
import type { ToolExecution } from '../../seams/types.js';
import { toolCalls } from '../runtime/callTable.js';
import type { ToolMachineServices } from '../runtime/services.js';
import { fixedServices, once, type ServicesResolver, servicesOfSystem } from '../runtime/systemServices.js';
import { toolCallMachine } from '../toolCall.js';
import { createDispatchScope, createToolCallActorsFor } from './actors.js';
import type { ToolCallContext } from './types.js';

const defaultDecisions = {
  'tools/pre-execute': { kind: 'allow' },
  'tools/post-execute': { kind: 'accept' },
} as const;

/**
 * The toolCall machine with services bound (tools, scopes, seams, cancel grace).
 * @param services the tool machine services
 * @example
 * const logic = createToolCallLogic({ tools, scopes, seams, cancelGraceMs: 5_000 });
 * const actor = createActor(logic, { input: { scopeKey, callKey, batched: false } });
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
  const execOf = (context: ToolCallContext): ToolExecution | undefined =>
    toolCalls.has(context.callKey) ? toolCalls.get(context.callKey).sealed?.exec : undefined;
  const report = (
    services: ToolMachineServices,
    origin: string,
    error: unknown,
    context: ToolCallContext,
  ): void => {
    services.reportError?.({
      error: { message: `${origin} failed for tool call "${context.callId}": ${describeThrown(error)}` },
      origin,
      ...(context.turn === null ? {} : { turn: context.turn }),
      ...(context.step === null ? {} : { step: context.step }),
    });
  };
  return toolCallMachine.provide({
    actors: createToolCallActorsFor(servicesOf),
    actions: {
      abortCall: ({ context }) => {
        if (toolCalls.has(context.callKey)) toolCalls.get(context.callKey).controller.abort();
      },
      // An empty waterfall is skipped by the machine, which still reports the default decision.
      emitDefaultDecided: ({ context, system }, params) => {
        const exec = execOf(context);
        if (!exec) return;
        const services = servicesOf({ system });
        try {
          const scope = createDispatchScope(services, context, exec, exec.signal);
          services.seams.notify(
            'seam/decided',
            {
              ...(scope.agentId === undefined ? {} : { agentId: scope.agentId }),
              seam: params.seam,
              decidedBy: 'default',
              decision: defaultDecisions[params.seam] as JsonValue,
              ...(context.turn === null ? {} : { turn: context.turn }),
              callId: context.callId,
            },
            scope,
          );
        } catch (error) {
          report(services, 'seam/decided', error, context);
        }
      },
      notifyResult: ({ context, system }) => {
        const exec = execOf(context);
        if (!exec || !context.seamsPresent['tools/result'] || !context.result) return;
        const services = servicesOf({ system });
        try {
          services.seams.notify(
            'tools/result',
            { exec, result: context.result },
            createDispatchScope(services, context, exec, exec.signal),
          );
        } catch (error) {
          report(services, 'tools/result', error, context);
        }
      },
    },
    delays: { cancelGrace: ({ system }) => servicesOf({ system }).cancelGraceMs },
  });
}
