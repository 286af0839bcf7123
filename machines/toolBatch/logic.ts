import { type ActorSystem, type AnyActorRef, fromCallback, fromPromise } from 'xstate';
import { describeThrown } from '../../seams/describe.js';
import type { ToolCallBlock, ToolResult } from '../../seams/schemas.js';
import type { SessionLog } from '../../session/types.js';
import { createFailureResult, parseToolArguments } from '../../tools/index.js';
import { toolCalls } from '../runtime/callTable.js';
import { sendToLiveChild } from '../runtime/sendToLiveChild.js';
import type { ToolMachineServices } from '../runtime/services.js';
import { fixedServices, once, type ServicesResolver, servicesOfSystem } from '../runtime/systemServices.js';
import { toolBatchMachine } from '../toolBatch.js';
import { createToolCallLogic, sharedToolCallLogic } from '../toolCall/logic.js';
import { createAbortedBeforeDispatch } from '../toolCall/rules.js';
import { callKeyOf } from './rules.js';
import type { ClassifyInput, ClassifyOutput, ToolBatchContext, ToolCallOutput } from './types.js';

type AnyActorSystem = ActorSystem<any>;
type EffectArgs = { context: ToolBatchContext; self: AnyActorRef; system: AnyActorSystem };

/**
 * The toolBatch machine with services bound: the log it appends to, the tool registry it classifies
 * with, and the toolCall logic it spawns.
 * @param services the tool machine services (with `log`)
 * @example
 * const batch = createToolBatchLogic({ tools, scopes, seams, log, cancelGraceMs: 5_000 });
 */
export function createToolBatchLogic(services: ToolMachineServices): typeof toolBatchMachine {
  return provideToolBatchLogic(fixedServices(services), createToolCallLogic(services));
}

/**
 * The toolBatch logic shared by every agent: it finds its services through the actor system
 * (`createActorWithServices`) and spawns the shared toolCall logic.
 */
export const sharedToolBatchLogic = once(() =>
  provideToolBatchLogic(servicesOfSystem<ToolMachineServices>, sharedToolCallLogic()),
);

/**
 * The toolBatch machine whose implementations resolve their services from their args.
 * @param servicesOf where the implementations find their services
 * @param toolCall the toolCall logic the batch spawns
 */
export function provideToolBatchLogic(
  servicesOf: ServicesResolver<ToolMachineServices>,
  toolCall: ReturnType<typeof createToolCallLogic>,
): typeof toolBatchMachine {
  const requireLog = (services: ToolMachineServices): SessionLog => {
    if (!services.log)
      throw new Error('The tool batch needs services.log to record tool/call and tool/result');
    return services.log;
  };
  // Side effects never throw: a failure becomes INTERNAL_ERROR, which finishes the batch with an error.
  const guarded =
    <TParams>(name: string, effect: (args: EffectArgs, params: TParams) => void) =>
    (args: EffectArgs, params: TParams): void => {
      try {
        effect(args, params);
      } catch (error) {
        args.self.send({ type: 'INTERNAL_ERROR', message: `${name} failed: ${describeThrown(error)}` });
      }
    };
  const appendResult = (
    services: ToolMachineServices,
    context: ToolBatchContext,
    callId: string,
    result: ToolResult,
  ): void => {
    requireLog(services).appendCore('tool/result', {
      turn: context.turn,
      step: context.step,
      callId,
      content: [...result.content],
      isError: result.isError,
      ...(result.isError ? { error: { ...result.error } } : {}),
    });
  };
  const appendCall = (
    services: ToolMachineServices,
    context: ToolBatchContext,
    call: ToolCallBlock,
  ): void => {
    requireLog(services).appendCore('tool/call', {
      turn: context.turn,
      step: context.step,
      callId: call.id,
      name: call.name,
      arguments: call.arguments,
    });
  };
  const commit = (args: EffectArgs, callId: string, result: ToolResult): void => {
    const { context, self } = args;
    toolCalls.close(callKeyOf(context, context.cursor));
    appendResult(servicesOf(args), context, callId, result);
    self._parent?.send({ type: 'CALL_COMMITTED', callId, contexts: result.additionalContexts ?? [] });
  };

  return toolBatchMachine.provide({
    actors: {
      toolCall,
      classify: fromPromise<ClassifyOutput, ClassifyInput>(async ({ input, system }) => ({
        mode: classifyCall(servicesOf({ system }), input.call),
      })),
      watchScope: fromCallback<{ type: 'ABORT' }, { scopeKey: string; callKeyPrefix: string }>(
        ({ input, sendBack, system }) => {
          const signal = servicesOf({ system }).scopes.get(input.scopeKey).controller.signal;
          const onAbort = (): void => sendBack({ type: 'ABORT' });
          if (signal.aborted) onAbort();
          else signal.addEventListener('abort', onAbort, { once: true });
          // Runs when the batch stops, however it stops: no call handle outlives it.
          return () => {
            signal.removeEventListener('abort', onAbort);
            toolCalls.closeAll(input.callKeyPrefix);
          };
        },
      ),
    },
    actions: {
      startCall: guarded('Recording tool/call', (args) => {
        const { context } = args;
        const services = servicesOf(args);
        const call = context.calls[context.started]!;
        const runSignal = services.scopes.get(context.scopeKey).controller.signal;
        toolCalls.open(
          callKeyOf(context, context.started),
          { callId: call.id, name: call.name, arguments: call.arguments },
          runSignal,
        );
        appendCall(services, context, call);
      }),
      commitResult: guarded<{ output: unknown }>('Recording tool/result', (args, params) => {
        const output = params.output as ToolCallOutput;
        commit(args, output.callId, output.result);
      }),
      commitCrashed: guarded('Recording a failed call', (args) => {
        const { context } = args;
        const call = context.calls[context.cursor]!;
        const reason = context.crashed[context.cursor] ?? 'unknown failure';
        commit(args, call.id, createFailureResult('PIPELINE_ERROR', `The tool call actor failed: ${reason}`));
      }),
      appendAbortedPairs: guarded('Recording aborted calls', (args) => {
        const { context } = args;
        const services = servicesOf(args);
        for (const call of context.calls.slice(context.started)) {
          appendCall(services, context, call);
          appendResult(services, context, call.id, createAbortedBeforeDispatch());
        }
      }),
      abortStartedCalls: guarded('Aborting started calls', ({ context, self }) => {
        // Only calls still running (decision 32): a call that died gets nothing.
        for (let index = context.cursor; index < context.started; index++) {
          sendToLiveChild(self, `call-${index}`, { type: 'ABORT' });
        }
      }),
    },
  });
}

/** A call's concurrency mode, read right before it starts; unknown tools and doubts are exclusive. */
export function classifyCall(
  services: Pick<ToolMachineServices, 'tools'>,
  call: ToolCallBlock,
): 'parallel' | 'exclusive' {
  const tool = services.tools.get(call.name);
  const concurrency = tool?.concurrency;
  if (concurrency === 'parallel') return 'parallel';
  if (typeof concurrency !== 'function') return 'exclusive';
  const args = parseToolArguments(call.arguments);
  if (!args.ok) return 'exclusive';
  try {
    return concurrency(args.value) === true ? 'parallel' : 'exclusive';
  } catch {
    return 'exclusive';
  }
}
