import { type ActorSystem, enqueueActions } from 'xstate';
import type { ToolExecution } from '../../seams/index.js';
import { describeToolCallRecord, sealToolCall } from '../../tools/index.js';
import type { CallHandles, ServicesResolver, ToolMachineServices } from '../runtime/index.js';
import { liveHandlesOf, sendToLive, servicesOfRun, whenStoppedFromOutside } from '../runtime/index.js';
import { notifyToolResult, reportDefaultDecision, reportNoticeFailure } from './notices.js';
import { createToolCallPhases, detachCall } from './phases.js';
import type {
  AsyncToolPhase,
  SyncToolPhase,
  ToolCallContext,
  ToolCallEvent,
  ToolCallReport,
  ToolPhaseEvent,
} from './types.js';

type Self = {
  send(event: ToolCallEvent): void;
  getSnapshot(): { readonly status: string; readonly context: ToolCallContext };
  subscribe(observer: { error(): void; complete(): void }): unknown;
};
type Args = {
  readonly context: ToolCallContext;
  readonly system: ActorSystem<any>;
  readonly self: Self;
};

/**
 * The toolCall machine's side-effect actions, each resolving its services from its args. None throws:
 * a failing notify is reported through `services.reportError`.
 * @param servicesOf where the actions find their services
 */
export function createToolCallActions(servicesOf: ServicesResolver<ToolMachineServices>) {
  const execOf = (context: ToolCallContext, system: ActorSystem<any>): ToolExecution | undefined => {
    return liveHandlesOf(system).calls.find(context.callKey)?.sealed?.exec;
  };
  const report = (
    services: ToolMachineServices,
    origin: string,
    error: unknown,
    context: ToolCallContext,
  ): void => reportNoticeFailure(services, origin, error, context, context.callId);
  const phases = createToolCallPhases();
  return {
    // The call's one listener on its signal (aborted by ABORT, the run's signal or the caller's): it
    // comes back as ABORT. Removed when the call table closes the call.
    // A stopped actor runs no exit action: once stopped from outside, what the call still holds is let go of.
    releaseOnStop: ({ system, self }: Args): void =>
      whenStoppedFromOutside(self, (context) => releaseStoppedCall(context, system)),
    watchAbort: ({ context, system, self }: Args): void => {
      const handles = liveHandlesOf(system).calls.find(context.callKey);
      if (!handles) return;
      const signal = handles.controller.signal;
      const onAbort = (): void => sendToLive(self, { type: 'ABORT' });
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      handles.unwatch = () => signal.removeEventListener('abort', onAbort);
    },
    // A synchronous phase runs now (never a throw); its outcome is the call's next event, after this step.
    runPhase: ({ context, system, self }: Args, params: { phase: SyncToolPhase }): void => {
      let event: ToolPhaseEvent;
      try {
        event = {
          type: `${params.phase}.done`,
          output: phases.sync[params.phase]({
            handles: liveHandlesOf(system),
            services: servicesOf({ system }),
            context,
          }),
        } as never;
      } catch (error) {
        event = { type: `${params.phase}.error`, error };
      }
      sendToLive(self, event);
    },
    // An asynchronous phase starts now with the call's phase signal; only the current phase's outcome is
    // sent back (a phase left or stopped in the meantime is stale: its controller was aborted and dropped).
    startPhase: ({ context, system, self }: Args, params: { phase: AsyncToolPhase }): void => {
      const { phase } = params;
      const liveHandles = liveHandlesOf(system);
      const handles = liveHandles.calls.find(context.callKey);
      const controller = phaseControllerOf(handles);
      if (handles) handles.phase = controller;
      const settle = (event: ToolPhaseEvent): void => {
        if (controller.signal.aborted || (handles && handles.phase !== controller)) return;
        if (handles) handles.phase = undefined;
        sendToLive(self, event);
      };
      let running: Promise<unknown>;
      try {
        // The phase runs with the handles and services of the call's actor system.
        running = phases.async[phase]({
          handles: liveHandles,
          services: servicesOf({ system }),
          context,
          signal: controller.signal,
        });
      } catch (error) {
        running = Promise.reject(error);
      }
      running.then(
        (output) => settle({ type: `${phase}.done`, output } as never),
        (error: unknown) => settle({ type: `${phase}.error`, error }),
      );
    },
    // Leaving a phase's state stops it: its signal aborts and a late outcome is ignored.
    stopPhase: ({ context, system }: Args): void => liveHandlesOf(system).calls.stopPhase(context.callKey),
    // The one place a standalone call's live handles are opened: its scope (listener snapshot,
    // abort controller) unless the input named one, and its call handles under its own key. Run
    // while the transition resolves (enqueueActions), so the handles exist before any child starts.
    openCall: enqueueActions<
      ToolCallContext,
      ToolCallEvent,
      unknown,
      ToolCallEvent,
      never,
      any,
      any,
      any,
      any
    >(({ context, system }): void => {
      if (context.owns === 'nothing') return;
      if (context.request === null) {
        throw new TypeError(
          `Expected the toolCall input to carry \`call: { callId, name, arguments }\` or the \`callKey\` of an opened call, got neither (call key "${context.callKey}")`,
        );
      }
      const services = servicesOfRun(servicesOf, system);
      if (services === undefined) return;
      const { scopes, calls } = liveHandlesOf(system);
      if (context.owns === 'scope') {
        scopes.openAs(context.scopeKey, {
          seams: services.seams.snapshot(services.agent?.id),
          controller: new AbortController(),
          ...(services.agent ? { agent: services.agent } : {}),
          ...(services.approval ? { approval: services.approval } : {}),
        });
      }
      calls.open(context.callKey, context.request, scopes.get(context.scopeKey).controller.signal);
    }),
    closeCall: ({ context, system }: Args): void => closeOwnedCall(context, system),
    abortCall: ({ context, system }: Args): void => {
      liveHandlesOf(system).calls.find(context.callKey)?.controller.abort();
    },
    // An empty waterfall is skipped by the machine, which still reports the default decision.
    emitDefaultDecided: (
      { context, system }: Args,
      params: { seam: 'tools/pre-execute' | 'tools/post-execute' },
    ): void => {
      const exec = execOf(context, system);
      if (!exec) return;
      const { seams } = liveHandlesOf(system).scopes.get(context.scopeKey);
      reportDefaultDecision(servicesOf({ system }), context, exec, params.seam, seams);
    },
    // Seals the call from the input it will run with (the token is created here, once).
    sealCall: ({ context, system }: Args): void => {
      const { scopes, calls } = liveHandlesOf(system);
      const handles = calls.find(context.callKey);
      if (!handles) return;
      const services = servicesOf({ system });
      try {
        const scope = scopes.get(context.scopeKey);
        // A call aborted or failed before it was read is detached here, so finalize still finds it.
        handles.sealed ??= sealToolCall(detachCall(services, handles, scope, context), handles.prepared);
      } catch (error) {
        report(services, 'sealing', error, context);
      }
    },
    // Under a batch, tells it the input that will run, so it records `tool/call` before pre-execute.
    reportPreparedInput: ({ context, system }: Args): void => {
      const handles = context.batched ? liveHandlesOf(system).calls.find(context.callKey) : undefined;
      if (!handles) return;
      const { request, prepared } = handles;
      handles.batch?.send({
        type: 'PREPARED_INPUT',
        callId: request.callId,
        ...describeToolCallRecord(request.arguments, prepared),
      });
    },
    notifyResult: ({ context, system }: Args): void => {
      const exec = execOf(context, system);
      if (!exec || !context.seamsPresent['tools/result'] || !context.result) return;
      notifyToolResult(servicesOf({ system }), context, exec, context.result);
    },
  };
}

// A call's phases share one controller until a phase is left while it runs (stopPhase aborts it), so
// a settled phase's controller serves the next one: an AbortController costs ~3.7 µs on Node 20.
function phaseControllerOf(handles: CallHandles | undefined): AbortController {
  const reusable = handles?.lastPhase;
  if (reusable && !reusable.signal.aborted) return reusable;
  const controller = new AbortController();
  if (handles) handles.lastPhase = controller;
  return controller;
}

/** A standalone call closes what it opened: its scope (with its handles) or just its handles; a batched call closes nothing. */
export function closeOwnedCall(context: ToolCallContext, system: ActorSystem<any>): void {
  if (context.owns === 'nothing') return;
  const handles = liveHandlesOf(system);
  if (context.owns === 'scope') handles.close(context.scopeKey);
  else handles.calls.close(context.callKey);
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
