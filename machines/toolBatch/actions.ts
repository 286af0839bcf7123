import { type ActorSystem, type AnyActorRef, enqueueActions } from 'xstate';
import type { ToolCallBlock, ToolDecidedBy, ToolResult } from '../../kernel/index.js';
import { describeThrown } from '../../kernel/index.js';
import type { SessionLog } from '../../session/index.js';
import { hashArguments, nextRequestId } from '../../session/index.js';
import { createFailureResult, type ToolCallRecord } from '../../tools/index.js';
import type { ServicesResolver, ToolMachineServices } from '../runtime/index.js';
import {
  createSteppedActor,
  liveHandlesOf,
  sendToLive,
  servicesOfRun,
  whenStoppedFromOutside,
} from '../runtime/index.js';
import type { ParkedRequest, ToolCallReport, ToolCallResume } from '../toolCall/index.js';
import { createAbortedBeforeDispatch } from '../toolCall/index.js';
import type { toolCallMachine } from '../toolCall.js';
import { classifyCall } from './actors.js';
import { callIndexOf, callKeyOf, holdsDispatch } from './rules.js';
import type { CallWait, ToolBatchContext, ToolBatchEvent, ToolCallOutput } from './types.js';

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
  // A refused tool/result is the batch's failure in the same microstep, so no later call is committed after
  // it; INTERNAL_ERROR then finishes the batch, as for any other failed effect.
  const committed = <TParams>(name: string, effect: (args: EffectArgs, params: TParams) => void) =>
    enqueueActions<ToolBatchContext, ToolBatchEvent, TParams, ToolBatchEvent, never, any, any, never, any>(
      ({ context, self, system, enqueue }, params): void => {
        if (servicesOfRun(servicesOf, system) === undefined) return;
        try {
          effect({ context, self, system }, params);
        } catch (error) {
          const message = `${name} failed: ${describeThrown(error)}`;
          enqueue.assign({ failure: message });
          self.send({ type: 'INTERNAL_ERROR', message });
        }
      },
    );
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
  // The stepped machine of a started call still open (a committed or closed call has none).
  const steppedOf = ({ context, system }: EffectArgs, index: number) =>
    liveHandlesOf(system).calls.find(callKeyOf(context, index))?.stepped;
  const commit = (args: EffectArgs, callId: string, result: ToolResult): void => {
    const { context } = args;
    recordCall(args, context.cursor);
    // A call committed while parked unanswered was aborted: its request is answered `cancelled` first.
    const wait = context.waiting[context.cursor];
    if (wait?.kind === 'parked' && !wait.answered && wait.requestId !== '') {
      const requested = requireLog(servicesOf(args)).events.findLast(
        (event) =>
          event.type === 'approval/requested' &&
          (event.data as { requestId: string }).requestId === wait.requestId,
      );
      if (requested) {
        requireLog(servicesOf(args)).appendCore('approval/resolved', {
          requestId: wait.requestId,
          outcome: 'cancelled',
          by: 'cancel',
          argsHash: (requested.data as { argsHash: string }).argsHash,
        });
      }
    }
    const { calls } = liveHandlesOf(args.system);
    const decidedBy = calls.find(callKeyOf(context, context.cursor))?.decidedBy;
    calls.close(callKeyOf(context, context.cursor));
    appendResult(servicesOf(args), context, callId, result, decidedBy);
    context.parent?.send({ type: 'CALL_COMMITTED', callId, contexts: result.additionalContexts ?? [] });
  };

  // The slot a resumed call re-enters with (a fresh call has none).
  const resumeOf = (context: ToolBatchContext, index: number): ToolCallResume | undefined => {
    const slot = context.resume?.[index];
    if (slot?.kind === 'parked')
      return {
        as: 'parked',
        requestId: slot.requestId,
        answer: slot.answer === null ? null : { ...slot.answer },
      };
    if (slot?.kind === 'held') return { as: 'held' };
    return undefined;
  };
  // The request of a call that parked: a new `approval/requested` with the sealed input, or the one it re-parked on.
  const recordRequest = (args: EffectArgs, index: number, request: ParkedRequest): CallWait => {
    if (request.requestId !== null)
      return { kind: 'parked', requestId: request.requestId, answered: request.answered };
    const { context } = args;
    const log = requireLog(servicesOf(args));
    const exec = liveHandlesOf(args.system).calls.find(callKeyOf(context, index))?.sealed?.exec;
    const call = context.calls[index]!;
    const input = exec?.arguments ?? {};
    const requestId = nextRequestId(log.events);
    log.appendCore('approval/requested', {
      requestId,
      callId: call.id,
      turn: context.turn,
      step: context.step,
      tool: exec?.name ?? call.name,
      arguments: input,
      argsHash: hashArguments(input),
      ...(request.reason === null ? {} : { reason: request.reason }),
      askedBy: request.askedBy,
      ...(request.expiresAt === null ? {} : { expiresAt: request.expiresAt }),
    });
    return { kind: 'parked', requestId, answered: false };
  };

  // The batch's actions that act while a transition is computed (enqueueActions), typed once.
  const resolvedAtTransition = enqueueActions<
    ToolBatchContext,
    ToolBatchEvent,
    unknown,
    ToolBatchEvent,
    never,
    any,
    any,
    never,
    any
  >;

  return {
    // The one place a batch's own run scope is opened (its input named none): the listener snapshot and
    // a fresh signal. Run while the transition resolves (enqueueActions), so it exists before the scope
    // watch starts.
    openScope: resolvedAtTransition(({ context, system }): void => {
      const services = servicesOfRun(servicesOf, system);
      if (!context.ownsScope || services === undefined) return;
      liveHandlesOf(system).scopes.openAs(context.scopeKey, {
        seams: services.seams.snapshot(services.agent?.id),
        controller: new AbortController(),
        ...(services.agent ? { agent: services.agent } : {}),
        ...(services.approval ? { approval: services.approval } : {}),
      });
    }),
    // Records `approval/requested` (a refused append fails the batch), then frees the lane.
    recordParked: resolvedAtTransition(({ context, event, self, system, enqueue }): void => {
      const index = callIndexOf(context, event);
      if (index === null || event.type !== 'call.report' || event.report !== 'PARKED') return;
      let wait: CallWait;
      try {
        // Where no run is (graph traversal), the call waits with the request it reported.
        wait =
          servicesOfRun(servicesOf, system) === undefined
            ? { kind: 'parked', requestId: event.request.requestId ?? '', answered: event.request.answered }
            : recordRequest({ context, self, system }, index, event.request);
      } catch (error) {
        self.send({
          type: 'INTERNAL_ERROR',
          message: `Recording approval/requested failed: ${describeThrown(error)}`,
        });
        wait = { kind: 'parked', requestId: '', answered: false };
      }
      enqueue.assign({
        waiting: context.waiting.map((w, i) => (i === index ? wait : w)),
        preparing: context.preparing === index ? null : context.preparing,
      });
    }),
    // A stopped actor runs no exit action: once stopped from outside, the calls it steps are stopped and closed.
    releaseOnStop: guarded('Watching for a stop', ({ self, system }) =>
      whenStoppedFromOutside(self, (context: ToolBatchContext) => releaseStartedCalls(context, system)),
    ),
    // The calls waiting for the resume are stopped and closed: the log holds all the resume needs.
    releaseWaitingCalls: guarded('Releasing waiting calls', ({ context, system }) =>
      releaseStartedCalls(context, system),
    ),
    // Then tells the call its `tool/call` is in the log (or was already, for a resumed call): its body may start.
    recordPreparedInput: guarded<{ report: unknown }>('Recording tool/call', (args, params) => {
      const { type: _type, callId: _callId, ...record } = params.report as PreparedInputReport;
      const index = callIndexOf(args.context, params.report);
      if (index === null) return;
      recordCall(args, index, record);
      steppedOf(args, index)?.send({ type: 'RECORDED' });
    }),
    // Never throws: a classification that fails is `classify.error` (the call then starts exclusive); the
    // outcome is the batch's next event, after this step.
    classifyNext: ({ context, self, system }: EffectArgs): void => {
      const index = context.started;
      let event: ToolBatchEvent;
      try {
        event = {
          type: 'classify.done',
          index,
          output: { mode: classifyCall(servicesOf({ system }), context.calls[index]!) },
        };
      } catch (error) {
        event = { type: 'classify.error', index, error };
      }
      sendToLive(self, event);
    },
    startCall: guarded('Opening a tool call', (args) => {
      const { context } = args;
      const call = context.calls[context.started]!;
      const { scopes, calls } = liveHandlesOf(args.system);
      const runSignal = scopes.get(context.scopeKey).controller.signal;
      // A resumed call runs with the input its `tool/call` recorded, and is not recorded again.
      const slot = context.resume?.[context.started];
      const recorded = slot?.kind === 'parked' || slot?.kind === 'held' ? slot.arguments : undefined;
      const handles = calls.open(
        callKeyOf(context, context.started),
        { callId: call.id, name: call.name, arguments: recorded ?? call.arguments },
        runSignal,
      );
      if (recorded !== undefined) handles.recorded = true;
    }),
    // The call's machine runs inside the batch, no actor: the batch holds it in the call's handles, steps
    // it with COMMIT and ABORT, and hears its end as `call.done` or `call.error`. Started while the
    // transition resolves (enqueueActions), not inside a custom action, as XState starts a spawned child.
    startSteppedCall: resolvedAtTransition(({ context, self, system }): void => {
      if (servicesOfRun(servicesOf, system) === undefined) return;
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
            holdDispatch: holdsDispatch(context),
            ...(resumeOf(context, index) === undefined ? {} : { resume: resumeOf(context, index)! }),
          },
          done: (output) => sendToLive(self, { type: 'call.done', index, output: output as ToolCallOutput }),
          failed: (error) => sendToLive(self, { type: 'call.error', index, error }),
        });
        // Held before it starts: a close during its initial actions stops it; its reports reach the batch.
        handles.stepped = stepped;
        handles.batch = self;
        stepped.start();
      } catch (error) {
        self.send({
          type: 'INTERNAL_ERROR',
          message: `Starting a tool call failed: ${describeThrown(error)}`,
        });
      }
    }),
    // A call that died gets nothing (decision 14): its `call.error` commits it.
    commitSteppedCall: guarded('Committing a tool call', (args) =>
      steppedOf(args, args.context.cursor)?.send({ type: 'COMMIT' }),
    ),
    commitResult: committed<{ output: unknown }>('Recording tool/result', (args, params) => {
      const output = params.output as ToolCallOutput;
      commit(args, output.callId, output.result);
    }),
    commitCrashed: committed('Recording a failed call', (args) => {
      const { context } = args;
      const call = context.calls[context.cursor]!;
      const reason = context.crashed[context.cursor] ?? 'unknown failure';
      commit(args, call.id, createFailureResult('PIPELINE_ERROR', `The tool call machine failed: ${reason}`));
    }),
    appendAbortedPairs: guarded('Recording aborted calls', (args) => {
      const { context } = args;
      const services = servicesOf(args);
      context.calls.forEach((call, index) => {
        if (index < context.started) return;
        // A call of a resumed step whose `tool/call` is in the log gets only its result.
        const slot = context.resume?.[index];
        if (slot?.kind !== 'parked' && slot?.kind !== 'held') appendCall(services, context, call);
        appendResult(services, context, call.id, createAbortedBeforeDispatch());
      });
    }),
    abortStartedCalls: guarded('Aborting started calls', (args) => {
      const { context } = args;
      // Only calls still running (decision 14): a call that died gets nothing.
      for (let index = context.cursor; index < context.started; index++) {
        steppedOf(args, index)?.send({ type: 'ABORT' });
      }
    }),
  };
}

/** Stops and closes every call started and not yet committed (a suspended or stopped batch holds none). */
function releaseStartedCalls(context: ToolBatchContext, system: ActorSystem<any>): void {
  const { calls } = liveHandlesOf(system);
  for (let index = context.cursor; index < context.started; index++) {
    const key = callKeyOf(context, index);
    calls.find(key)?.stepped?.stop();
    calls.close(key);
  }
}
