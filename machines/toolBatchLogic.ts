import { type AnyActorRef, fromCallback, fromPromise } from 'xstate';
import { describeThrown } from '../seams/describe.js';
import type { ToolCallBlock, ToolResult } from '../seams/schemas.js';
import type { SessionLog } from '../session/types.js';
import { createFailureResult, parseToolArguments } from '../tools/index.js';
import { toolCalls } from './callTable.js';
import type { ToolMachineServices } from './services.js';
import { toolBatchMachine } from './toolBatch.js';
import { callKeyOf } from './toolBatchRules.js';
import type { ClassifyInput, ClassifyOutput, ToolBatchContext, ToolCallOutput } from './toolBatchTypes.js';
import { createToolCallLogic } from './toolCallLogic.js';
import { createAbortedBeforeDispatch } from './toolCallRules.js';

type EffectArgs = { context: ToolBatchContext; self: AnyActorRef };

/**
 * The toolBatch machine with services bound: the log it appends to, the tool registry it classifies
 * with, and the toolCall logic it spawns.
 * @param services the tool machine services (with `log`)
 * @example
 * const batch = createToolBatchLogic({ tools, scopes, seams, log, cancelGraceMs: 5_000 });
 */
export function createToolBatchLogic(services: ToolMachineServices): typeof toolBatchMachine {
  const requireLog = (): SessionLog => {
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
  const appendResult = (context: ToolBatchContext, callId: string, result: ToolResult): void => {
    requireLog().appendCore('tool/result', {
      turn: context.turn,
      step: context.step,
      callId,
      content: [...result.content],
      isError: result.isError,
      ...(result.isError ? { error: { ...result.error } } : {}),
    });
  };
  const appendCall = (context: ToolBatchContext, call: ToolCallBlock): void => {
    requireLog().appendCore('tool/call', {
      turn: context.turn,
      step: context.step,
      callId: call.id,
      name: call.name,
      arguments: call.arguments,
    });
  };
  const commit = (context: ToolBatchContext, self: AnyActorRef, callId: string, result: ToolResult): void => {
    toolCalls.close(callKeyOf(context, context.cursor));
    appendResult(context, callId, result);
    self._parent?.send({ type: 'CALL_COMMITTED', callId, contexts: result.additionalContexts ?? [] });
  };

  return toolBatchMachine.provide({
    actors: {
      toolCall: createToolCallLogic(services),
      classify: fromPromise<ClassifyOutput, ClassifyInput>(async ({ input }) => ({
        mode: classifyCall(services, input.call),
      })),
      watchScope: fromCallback<{ type: 'ABORT' }, { scopeKey: string; callKeyPrefix: string }>(
        ({ input, sendBack }) => {
          const signal = services.scopes.get(input.scopeKey).controller.signal;
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
      startCall: guarded('Recording tool/call', ({ context }) => {
        const call = context.calls[context.started]!;
        const runSignal = services.scopes.get(context.scopeKey).controller.signal;
        toolCalls.open(
          callKeyOf(context, context.started),
          { callId: call.id, name: call.name, arguments: call.arguments },
          runSignal,
        );
        appendCall(context, call);
      }),
      commitResult: guarded<{ output: unknown }>('Recording tool/result', ({ context, self }, params) => {
        const output = params.output as ToolCallOutput;
        commit(context, self, output.callId, output.result);
      }),
      commitCrashed: guarded('Recording a failed call', ({ context, self }) => {
        const call = context.calls[context.cursor]!;
        const reason = context.crashed[context.cursor] ?? 'unknown failure';
        commit(
          context,
          self,
          call.id,
          createFailureResult('PIPELINE_ERROR', `The tool call actor failed: ${reason}`),
        );
      }),
      appendAbortedPairs: guarded('Recording aborted calls', ({ context }) => {
        for (const call of context.calls.slice(context.started)) {
          appendCall(context, call);
          appendResult(context, call.id, createAbortedBeforeDispatch());
        }
      }),
      abortStartedCalls: guarded('Aborting started calls', ({ context, self }) => {
        const children = self.getSnapshot().children as Record<string, AnyActorRef | undefined>;
        for (let index = context.cursor; index < context.started; index++) {
          children[`call-${index}`]?.send({ type: 'ABORT' });
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
