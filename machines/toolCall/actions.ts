import type { ActorSystem } from 'xstate';
import { describeThrown } from '../../seams/describe.js';
import type { JsonValue } from '../../seams/schemas.js';
import type { ToolExecution } from '../../seams/types.js';
import { describeToolCallRecord, sealToolCall } from '../../tools/index.js';
import { toolCalls } from '../runtime/callTable.js';
import type { ToolMachineServices } from '../runtime/services.js';
import type { ServicesResolver } from '../runtime/systemServices.js';
import { createDispatchScope, detachCall } from './actors.js';
import type { ToolCallContext, ToolCallReport } from './types.js';

type Args = {
  readonly context: ToolCallContext;
  readonly system: ActorSystem<any>;
  readonly self: { readonly _parent?: { send(event: ToolCallReport): void } };
};

const defaultDecisions = {
  'tools/pre-execute': { kind: 'allow' },
  'tools/post-execute': { kind: 'accept' },
} as const;

/**
 * The toolCall machine's side-effect actions, each resolving its services from its args. None throws:
 * a failing notify is reported through `services.reportError`.
 * @param servicesOf where the actions find their services
 */
export function createToolCallActions(servicesOf: ServicesResolver<ToolMachineServices>) {
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
  return {
    abortCall: ({ context }: Args): void => {
      if (toolCalls.has(context.callKey)) toolCalls.get(context.callKey).controller.abort();
    },
    // An empty waterfall is skipped by the machine, which still reports the default decision.
    emitDefaultDecided: (
      { context, system }: Args,
      params: { seam: keyof typeof defaultDecisions },
    ): void => {
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
    sealCall: ({ context, system }: Args): void => {
      if (!toolCalls.has(context.callKey)) return;
      const services = servicesOf({ system });
      try {
        const handles = toolCalls.get(context.callKey);
        // A call aborted or failed before it was read is detached here, so finalize still finds it.
        handles.sealed ??= sealToolCall(detachCall(services, handles, context), handles.prepared);
      } catch (error) {
        report(services, 'sealing', error, context);
      }
    },
    reportPreparedInput: ({ context, self }: Args): void => {
      if (!context.batched || !toolCalls.has(context.callKey)) return;
      const { request, prepared } = toolCalls.get(context.callKey);
      self._parent?.send({
        type: 'PREPARED_INPUT',
        callId: request.callId,
        ...describeToolCallRecord(request.arguments, prepared),
      });
    },
    notifyResult: ({ context, system }: Args): void => {
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
  };
}
