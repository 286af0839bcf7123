import { type ActorSystem, type AnyActorRef, enqueueActions } from 'xstate';
import type { ToolCallBlock, ToolDecidedBy, ToolResult } from '../../kernel/index.js';
import { describeThrown } from '../../kernel/index.js';
import type { SessionLog } from '../../session/types.js';
import { createFailureResult, describeToolCallRecord, type ToolCallRecord } from '../../tools/index.js';
import { liveHandlesOf } from '../runtime/liveHandles.js';
import { sendToLive } from '../runtime/sendToLiveChild.js';
import type { ToolMachineServices } from '../runtime/services.js';
import { createSteppedActor } from '../runtime/steppedActor.js';
import type { ServicesResolver } from '../runtime/systemServices.js';
import { directCall as direct, takesDirectPath } from '../toolCall/direct.js';
import type { CallRuntime } from '../toolCall/phases.js';
import { createAbortedBeforeDispatch } from '../toolCall/rules.js';
import type { ToolCallReport } from '../toolCall/types.js';
import type { toolCallMachine } from '../toolCall.js';
import { classifyCall } from './actors.js';
import { callIndexOf, callKeyOf } from './rules.js';
import type { ToolBatchContext, ToolBatchEvent, ToolCallOutput } from './types.js';

type PreparedInputReport = Extract<ToolCallReport, { type: 'PREPARED_INPUT' }>;

type AnyActorSystem = ActorSystem<any>;
type EffectArgs = { context: ToolBatchContext; self: AnyActorRef; system: AnyActorSystem };

/**
 * The toolBatch machine's side-effect actions, each resolving its services from its args. None throws:
 * a failure becomes INTERNAL_ERROR, which finishes the batch with an error.
 * @param servicesOf where the actions find their services
 * @param toolCallLogic the provided toolCall machine the batch steps for each call with listeners
 */
export function createToolBatchActions(
  servicesOf: ServicesResolver<ToolMachineServices>,
  toolCallLogic: typeof toolCallMachine,
) {
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
    decidedBy: ToolDecidedBy = {},
  ): void => {
    requireLog(services).appendCore('tool/result', {
      turn: context.turn,
      step: context.step,
      callId,
      content: [...result.content],
      isError: result.isError,
      ...(result.isError ? { error: { ...result.error } } : {}),
      ...(result.truncated === undefined ? {} : { truncated: { ...result.truncated } }),
      ...(Object.keys(decidedBy).length === 0 ? {} : { decidedBy: { ...decidedBy } }),
    });
  };
  const appendCall = (
    services: ToolMachineServices,
    context: ToolBatchContext,
    call: ToolCallBlock,
    record: ToolCallRecord = { arguments: call.arguments },
  ): void => {
    requireLog(services).appendCore('tool/call', {
      turn: context.turn,
      step: context.step,
      callId: call.id,
      name: call.name,
      arguments: record.arguments,
      ...(record.original === undefined ? {} : { original: record.original }),
      ...(record.rewrites === undefined ? {} : { rewrites: [...record.rewrites] }),
    });
  };
  // Once per started call: from its PREPARED_INPUT, or with the model's input if it reported or died first.
  const recordCall = (args: EffectArgs, index: number, record?: ToolCallRecord): void => {
    const { context } = args;
    const key = callKeyOf(context, index);
    const handles = liveHandlesOf(args.system).calls.find(key);
    if (!handles || handles.recorded) return;
    handles.recorded = true;
    appendCall(servicesOf(args), context, context.calls[index]!, record);
  };
  // A direct call runs with the batch system's handles and services.
  const runtimeOf = ({ system }: EffectArgs): CallRuntime => ({
    handles: liveHandlesOf(system),
    services: servicesOf({ system }),
  });
  const placeOf = (context: ToolBatchContext, index: number) => ({
    scopeKey: context.scopeKey,
    callKey: callKeyOf(context, index),
    turn: context.turn,
    step: context.step,
  });
  // The stepped machine of a started call still open (a committed or closed call has none).
  const steppedOf = ({ context, system }: EffectArgs, index: number) =>
    liveHandlesOf(system).calls.find(callKeyOf(context, index))?.stepped;
  const commit = (args: EffectArgs, callId: string, result: ToolResult): void => {
    const { context, self } = args;
    recordCall(args, context.cursor);
    const { calls } = liveHandlesOf(args.system);
    const decidedBy = calls.find(callKeyOf(context, context.cursor))?.decidedBy;
    calls.close(callKeyOf(context, context.cursor));
    appendResult(servicesOf(args), context, callId, result, decidedBy);
    self._parent?.send({ type: 'CALL_COMMITTED', callId, contexts: result.additionalContexts ?? [] });
  };

  return {
    recordPreparedInput: guarded<{ report: unknown }>('Recording tool/call', (args, params) => {
      const { type: _type, callId: _callId, ...record } = params.report as PreparedInputReport;
      const index = callIndexOf(args.context, params.report);
      if (index !== null) recordCall(args, index, record);
    }),
    // Never throws: a classification that fails is `classify.error` (the call then starts exclusive). The
    // outcome comes back a microtask later, as a promise's would: an ABORT already on its way arrives first.
    classifyNext: ({ context, self, system }: EffectArgs): void => {
      const index = context.started;
      let event: ToolBatchEvent;
      try {
        const { seams } = liveHandlesOf(system).scopes.get(context.scopeKey);
        event = {
          type: 'classify.done',
          index,
          output: {
            mode: classifyCall(servicesOf({ system }), context.calls[index]!),
            direct: takesDirectPath(seams),
          },
        };
      } catch (error) {
        event = { type: 'classify.error', index, error };
      }
      queueMicrotask(() => sendToLive(self, event));
    },
    startCall: guarded('Opening a tool call', (args) => {
      const { context } = args;
      const call = context.calls[context.started]!;
      const { scopes, calls } = liveHandlesOf(args.system);
      const runSignal = scopes.get(context.scopeKey).controller.signal;
      calls.open(
        callKeyOf(context, context.started),
        { callId: call.id, name: call.name, arguments: call.arguments },
        runSignal,
      );
    }),
    // The call's machine runs inside the batch, no actor: the batch holds it in the call's handles, steps
    // it with COMMIT and ABORT, and hears its end as `call.done` or `call.error`. Started while the
    // transition resolves (enqueueActions), not inside a custom action, as XState starts a spawned child.
    startSteppedCall: enqueueActions<
      ToolBatchContext,
      ToolBatchEvent,
      unknown,
      ToolBatchEvent,
      never,
      any,
      any,
      never,
      any
    >(({ context, self, system }): void => {
      const index = context.started;
      try {
        const key = callKeyOf(context, index);
        const handles = liveHandlesOf(system).calls.get(key);
        const id = `call-${index}`;
        const stepped = createSteppedActor(toolCallLogic, {
          parent: self,
          system,
          id,
          sessionId: `${self.sessionId}/${id}`,
          input: {
            scopeKey: context.scopeKey,
            callKey: key,
            batched: true,
            turn: context.turn,
            step: context.step,
          },
          done: (output) => sendToLive(self, { type: 'call.done', index, output: output as ToolCallOutput }),
          failed: (error) => sendToLive(self, { type: 'call.error', index, error }),
        });
        // Held before it starts: a close during its initial actions stops it.
        handles.stepped = stepped;
        stepped.start();
      } catch (error) {
        self.send({
          type: 'INTERNAL_ERROR',
          message: `Starting a tool call failed: ${describeThrown(error)}`,
        });
      }
    }),
    // A call that died gets nothing (decision 32): its `call.error` commits it.
    commitSteppedCall: guarded('Committing a tool call', (args) =>
      steppedOf(args, args.context.cursor)?.send({ type: 'COMMIT' }),
    ),
    // Reads and seals the call, records `tool/call` (nothing can rewrite the input; a refused append
    // runs no body), then runs it; the result comes back as DIRECT_SETTLED, a microtask later at the
    // earliest, as a stepped call's report would.
    runDirectCall: guarded('Starting a tool call', (args) => {
      const { context, self } = args;
      const index = context.started;
      const call = context.calls[index]!;
      const place = placeOf(context, index);
      const runtime = runtimeOf(args);
      const sealed = direct.seal(runtime, place);
      recordCall(args, index, describeToolCallRecord(call.arguments));
      void direct
        .run(runtime, place, sealed)
        .then((output) => sendToLive(self, { type: 'DIRECT_SETTLED', index, output }));
    }),
    commitDirectResult: guarded('Recording tool/result', (args) => {
      const { context } = args;
      const index = context.cursor;
      const settled = context.results[index];
      // Committed only once settled (`canCommitDirect`): a missing result is a bug, and fails the batch.
      if (!settled) throw new Error(`direct call ${index} was committed before it settled`);
      commit(
        args,
        context.calls[index]!.id,
        direct.finish(runtimeOf(args), placeOf(context, index), settled),
      );
    }),
    commitResult: guarded<{ output: unknown }>('Recording tool/result', (args, params) => {
      const output = params.output as ToolCallOutput;
      commit(args, output.callId, output.result);
    }),
    commitCrashed: guarded('Recording a failed call', (args) => {
      const { context } = args;
      const call = context.calls[context.cursor]!;
      const reason = context.crashed[context.cursor] ?? 'unknown failure';
      commit(args, call.id, createFailureResult('PIPELINE_ERROR', `The tool call machine failed: ${reason}`));
    }),
    appendAbortedPairs: guarded('Recording aborted calls', (args) => {
      const { context } = args;
      const services = servicesOf(args);
      for (const call of context.calls.slice(context.started)) {
        appendCall(services, context, call);
        appendResult(services, context, call.id, createAbortedBeforeDispatch());
      }
    }),
    abortStartedCalls: guarded('Aborting started calls', (args) => {
      const { context, system } = args;
      const { calls } = liveHandlesOf(system);
      // Only calls still running (decision 32): a call that died gets nothing.
      for (let index = context.cursor; index < context.started; index++) {
        const key = callKeyOf(context, index);
        // A direct call has no machine: its own controller is its abort (the body's signal).
        if (!context.direct[index]) steppedOf(args, index)?.send({ type: 'ABORT' });
        else calls.find(key)?.controller.abort();
      }
    }),
  };
}
