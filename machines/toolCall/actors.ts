import { type ActorSystem, fromCallback, fromPromise } from 'xstate';
import {
  ApprovalAnswerSchema,
  type ApprovalVerdict,
  describeThrown,
  type ToolResult,
} from '../../kernel/index.js';
import { Seam } from '../../seams/names.js';
import type { DispatchScope, ToolExecution } from '../../seams/types.js';
import {
  applyPostDecision,
  createCoreDispatch,
  createFailureResult,
  type DetachedCall,
  detachToolCall,
  isPreparable,
  prepareToolInput,
  runFinalizer,
  type SealedCall,
  ToolMessage,
  withContexts,
  withoutContexts,
} from '../../tools/index.js';
import type { CallHandles } from '../runtime/callTable.js';
import { liveHandlesOf } from '../runtime/liveHandles.js';
import type { RunScope } from '../runtime/scopeTable.js';
import type { ToolMachineServices } from '../runtime/services.js';
import type { ServicesResolver } from '../runtime/systemServices.js';
import { normalizeAroundResult } from './normalize.js';
import { createAbortedBeforeDispatch, describeApprovalRefusal } from './rules.js';
import {
  type ApprovalOutput,
  type DetachOutput,
  type DispatchOutput,
  type FinalizeOutput,
  type GuardsOutput,
  type PostExecuteInput,
  type PostExecuteOutput,
  type PreExecuteOutput,
  type PrepareOutput,
  type ToolCallActorInput,
  type ToolSeamsPresent,
  toolSeamKeys,
} from './types.js';

interface Resolved {
  readonly handles: CallHandles;
  readonly sealed: SealedCall;
  readonly exec: ToolExecution;
  readonly scope: RunScope;
}

/**
 * The toolCall machine's actors, each resolving its services from its args (see `ServicesResolver`).
 * @param servicesOf where the actors find tools, scopes, seams, cancel grace
 */
export function createToolCallActors(servicesOf: ServicesResolver<ToolMachineServices>) {
  const resolve = (system: ActorSystem<any>, input: ToolCallActorInput): Resolved => {
    const { scopes, calls } = liveHandlesOf(system);
    const handles = calls.get(input.callKey);
    if (!handles.sealed) throw new Error(`Tool call "${input.callKey}" was not sealed before its policy ran`);
    return {
      handles,
      sealed: handles.sealed,
      exec: handles.sealed.exec,
      scope: scopes.get(input.scopeKey),
    };
  };
  // The actor's own signal aborts when the machine leaves the state: a late decision is then ignored.
  const dispatchScope = (
    services: ToolMachineServices,
    input: ToolCallActorInput,
    exec: Pick<ToolExecution, 'agent' | 'callId'>,
    signal: AbortSignal,
  ): DispatchScope => createDispatchScope(services, input, exec, signal);

  return {
    detach: fromPromise<DetachOutput, ToolCallActorInput>(async ({ input, system }) => {
      const services = servicesOf({ system });
      const { scopes, calls } = liveHandlesOf(system);
      const handles = calls.get(input.callKey);
      const scope = scopes.get(input.scopeKey);
      const detached = detachCall(services, handles, scope, input);
      const seamsPresent = Object.fromEntries(toolSeamKeys.map((key) => [key, scope.seams.has(key)]));
      const base = {
        callId: detached.callId,
        name: detached.name,
        hasFinalizer: detached.finalize !== undefined,
        seamsPresent: seamsPresent as ToolSeamsPresent,
        preparable: isPreparable(detached),
      };
      if (detached.argumentsError !== undefined) {
        return { ...base, outcome: 'invalid-args', message: detached.argumentsError };
      }
      return { ...base, outcome: handles.controller.signal.aborted ? 'pre-aborted' : 'detached' };
    }),

    // The fold's input to seal is left in the call table, also when it fails (for finalize and the log).
    prepare: fromPromise<PrepareOutput, ToolCallActorInput>(async ({ input, signal, system }) => {
      const services = servicesOf({ system });
      const { scopes, calls } = liveHandlesOf(system);
      const handles = calls.get(input.callKey);
      const call = handles.detached;
      if (call === undefined || !isPreparable(call)) {
        throw new Error(`Tool call "${input.callKey}" reached tools/prepare without a preparable input`);
      }
      const scope = scopes.get(input.scopeKey);
      const outcome = await prepareToolInput(scope.seams, call, dispatchScope(services, input, call, signal));
      handles.prepared = outcome.input;
      return outcome.kind === 'prepared'
        ? { outcome: 'prepared' }
        : { outcome: 'refused', result: outcome.result };
    }),

    preExecute: fromPromise<PreExecuteOutput, ToolCallActorInput>(async ({ input, signal, system }) => {
      const services = servicesOf({ system });
      const { exec, scope } = resolve(system, input);
      const outcome = await scope.seams.waterfall(
        'tools/pre-execute',
        exec,
        { kind: 'allow' },
        dispatchScope(services, input, exec, signal),
      );
      return { decision: outcome.decision, decidedBy: outcome.decidedBy };
    }),

    approval: fromPromise<ApprovalOutput, ToolCallActorInput & { reason: string | null }>(
      async ({ input, signal, system }) => {
        const services = servicesOf({ system });
        const { exec, scope } = resolve(system, input);
        // An agent-less call has a channel only if the caller passed one (tools.execute({ approval })).
        const channel = scope.approval ?? (exec.agent ? services.seams.approval : undefined);
        let missing: 'no agent' | 'no approval channel' | undefined;
        const ask = async (): Promise<ApprovalVerdict> => {
          if (!channel) {
            missing = services.seams.approval ? 'no agent' : 'no approval channel';
            return { outcome: 'unavailable' };
          }
          const rawAnswer = await channel.request({
            ...(exec.agent ? { agent: exec.agent } : {}),
            toolName: exec.name,
            callId: exec.callId,
            ...(exec.turn === undefined ? {} : { turn: exec.turn }),
            ...(exec.step === undefined ? {} : { step: exec.step }),
            arguments: exec.arguments,
            ...(input.reason === null ? {} : { reason: input.reason }),
            signal: exec.signal,
          });
          const answer = ApprovalAnswerSchema.parse(rawAnswer);
          return typeof answer === 'string' ? { outcome: answer } : answer;
        };
        // `tools/approval` listeners answer before the channel; `next()` falls through to it.
        const verdict = scope.seams.has(Seam.approval)
          ? (
              await scope.seams.approval(
                { exec, ...(input.reason === null ? {} : { reason: input.reason }) },
                ask,
                dispatchScope(services, input, exec, signal),
              )
            ).decision
          : await ask();
        if (verdict.outcome === 'allowed-once') return { kind: 'granted' };
        if (verdict.outcome === 'cancelled' && exec.signal.aborted) return { kind: 'aborted' };
        if (missing && verdict.outcome === 'unavailable') {
          return { kind: 'denied', reason: describeApprovalRefusal(exec.name, missing) };
        }
        return {
          kind: 'denied',
          reason: describeApprovalRefusal(exec.name, verdict.outcome, verdict.reason),
        };
      },
    ),

    guards: fromPromise<GuardsOutput, ToolCallActorInput>(async ({ input, system }) => {
      const { exec, scope } = resolve(system, input);
      const denial = scope.seams.guards(exec);
      return denial ? { denied: denial.denied, by: denial.by } : { denied: null, by: null };
    }),

    dispatch: fromPromise<DispatchOutput, ToolCallActorInput>(async ({ input, signal, system }) => {
      const services = servicesOf({ system });
      const { handles, exec, scope } = resolve(system, input);
      const callSignal = handles.controller.signal;
      // Stopping this actor (the call actor was stopped mid-body) must stop the body too.
      const stop = (): void => handles.controller.abort(signal.reason);
      signal.addEventListener('abort', stop, { once: true });
      try {
        const canonical = new WeakSet<ToolResult>();
        const core = createCoreDispatch({
          tools: services.tools,
          cancelGraceMs: services.cancelGraceMs,
          callSignal,
          onBodyStart: () => {
            handles.bodyStarted = true;
          },
        });
        const tracked = async (current: ToolExecution): Promise<ToolResult> => {
          const result = await core(current);
          canonical.add(result);
          return result;
        };
        const raw = scope.seams.has('tools/execute')
          ? await scope.seams.around(exec, tracked, dispatchScope(services, input, exec, signal))
          : await tracked(exec);
        let result = canonical.has(raw) ? raw : normalizeAroundResult(raw, exec, services.tools);
        // A success that arrives after the cancel is not trusted: nobody asked for it any more.
        if (callSignal.aborted && !result.isError) {
          const aborted = handles.bodyStarted ? abortedAfterStart() : createAbortedBeforeDispatch();
          result = withContexts(aborted, result.additionalContexts ?? []);
        }
        return { result: withoutContexts(result), contexts: result.additionalContexts ?? [] };
      } finally {
        signal.removeEventListener('abort', stop);
      }
    }),

    postExecute: fromPromise<PostExecuteOutput, PostExecuteInput>(async ({ input, signal, system }) => {
      const services = servicesOf({ system });
      const { exec, scope } = resolve(system, input);
      const outcome = await scope.seams.waterfall(
        'tools/post-execute',
        { exec, result: input.result },
        { kind: 'accept' },
        dispatchScope(services, input, exec, signal),
      );
      const applied = applyPostDecision(input.result, outcome.decision, exec, services.tools);
      return { result: applied.result, contexts: applied.contexts, blocked: applied.blocked };
    }),

    finalize: fromPromise<FinalizeOutput, PostExecuteInput>(async ({ input, system }) => {
      const { sealed, exec } = resolve(system, input);
      if (!sealed.finalize) return { result: input.result };
      return { result: runFinalizer(sealed.finalize, exec, input.result) };
    }),

    watchAbort: fromCallback<{ type: 'ABORT' }, { callKey: string }>(({ input, sendBack, system }) => {
      const signal = liveHandlesOf(system).calls.get(input.callKey).controller.signal;
      const onAbort = (): void => sendBack({ type: 'ABORT' });
      if (signal.aborted) {
        onAbort();
        return undefined;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      return () => signal.removeEventListener('abort', onAbort);
    }),
  };
}

/** Where a call's seam dispatch happens: agent filter, turn, call id, signal, contained-failure sink. */
export function createDispatchScope(
  services: ToolMachineServices,
  input: { turn: number | null; step: number | null },
  exec: Pick<ToolExecution, 'agent' | 'callId'>,
  signal: AbortSignal,
): DispatchScope {
  const agentId = exec.agent?.id;
  const report = services.reportError;
  return {
    ...(agentId === undefined ? {} : { agentId }),
    ...(input.turn === null ? {} : { turn: input.turn }),
    callId: exec.callId,
    signal,
    ...(report
      ? {
          onContainedError: ({ seam, listener, error }) =>
            report({
              error: {
                message: `Listener "${listener}" on seam "${seam}" failed: ${describeThrown(error)}`,
              },
              origin: seam,
              ...(input.turn === null ? {} : { turn: input.turn }),
              ...(input.step === null ? {} : { step: input.step }),
            }),
        }
      : {}),
  };
}

/**
 * Reads a call's request once (arguments parsed, definition snapshotted) and keeps it in the call
 * table; a call already detached is returned as it was.
 * @param services tools, scopes and the fallback agent
 * @param handles the call's live handles
 * @param scope the run the call belongs to (its agent)
 * @param input where the call runs (turn, step)
 */
export function detachCall(
  services: ToolMachineServices,
  handles: CallHandles,
  scope: RunScope,
  input: Pick<ToolCallActorInput, 'turn' | 'step'>,
): DetachedCall {
  if (handles.detached) return handles.detached;
  const { request, controller } = handles;
  handles.detached = detachToolCall(
    {
      callId: request.callId,
      name: request.name,
      arguments: request.arguments,
      agent: request.agent ?? scope.agent ?? services.agent,
      turn: input.turn ?? undefined,
      step: input.step ?? undefined,
      parent: request.parent,
      signal: controller.signal,
    },
    services.tools,
  );
  return handles.detached;
}

function abortedAfterStart(): ToolResult {
  return createFailureResult('ABORTED', ToolMessage.aborted());
}
