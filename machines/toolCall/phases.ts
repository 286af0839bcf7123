import {
  ApprovalAnswerSchema,
  type ApprovalVerdict,
  describeThrown,
  type ToolResult,
} from '../../kernel/index.js';
import type { DispatchScope, ToolExecution } from '../../seams/index.js';
import { deciderOf, Seam } from '../../seams/index.js';
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
import type { CallHandles, LiveHandles, RunScope, ToolMachineServices } from '../runtime/index.js';
import { normalizeAroundResult } from './normalize.js';
import { assembleResult, createAbortedBeforeDispatch, describeApprovalRefusal } from './rules.js';
import {
  type AsyncToolPhase,
  type DetachOutcome,
  type ToolCallContext,
  type ToolPhaseOutputs,
  type ToolSeamsPresent,
  toolSeamKeys,
} from './types.js';

/** Who `tool/result.decidedBy.approval` names when the approval channel (a person, a client) answered. */
export const APPROVAL_CHANNEL = 'approval channel';

interface Resolved {
  readonly handles: CallHandles;
  readonly sealed: SealedCall;
  readonly exec: ToolExecution;
  readonly scope: RunScope;
}

/** Where a call runs: enough to find its handles and scope. */
export type CallPlace = Pick<ToolCallContext, 'scopeKey' | 'callKey' | 'turn' | 'step'>;

/**
 * Where a call's phases find what they run with: the live handles and services of the call's owner
 * (resolved from the actor system by the machines' actions).
 */
export interface CallRuntime {
  readonly handles: LiveHandles;
  readonly services: ToolMachineServices;
}

/** What a phase runs with: the call's runtime, its context, its signal. */
export interface PhaseArgs<TContext = ToolCallContext> extends CallRuntime {
  readonly context: TContext;
  /** Aborted when the machine leaves the phase's state (or the call stops): a late outcome is ignored. */
  readonly signal: AbortSignal;
}
type SyncArgs<TContext> = Omit<PhaseArgs<TContext>, 'signal'>;

/** The synchronous phases: run inside the transition that enters their state. */
export interface SyncPhaseRunners {
  detach(args: SyncArgs<CallPlace>): ToolPhaseOutputs['detach'];
  guards(args: SyncArgs<CallPlace>): ToolPhaseOutputs['guards'];
  finalize(args: SyncArgs<CallPlace & Pick<ToolCallContext, 'result'>>): ToolPhaseOutputs['finalize'];
}
/** The asynchronous phases: started on entry, their outcome sent back as an event. */
export type AsyncPhaseRunners = {
  [P in Exclude<AsyncToolPhase, 'dispatch'>]: (args: PhaseArgs) => Promise<ToolPhaseOutputs[P]>;
} & { dispatch(args: PhaseArgs<CallPlace>): Promise<ToolPhaseOutputs['dispatch']> };

/**
 * The toolCall machine's phases, each running with the handles and services in its args. None is an
 * actor: `runPhase` and `startPhase` (actions.ts) run them and send their outcome back.
 */
export function createToolCallPhases(): {
  readonly sync: SyncPhaseRunners;
  readonly async: AsyncPhaseRunners;
} {
  const resolve = ({ scopes, calls }: LiveHandles, context: CallPlace): Resolved => {
    const handles = calls.get(context.callKey);
    if (!handles.sealed)
      throw new Error(`Tool call "${context.callKey}" was not sealed before its policy ran`);
    return {
      handles,
      sealed: handles.sealed,
      exec: handles.sealed.exec,
      scope: scopes.get(context.scopeKey),
    };
  };
  // The phase's own signal aborts when the machine leaves the state: a late decision is then ignored.
  const dispatchScope = (
    services: ToolMachineServices,
    context: CallPlace,
    exec: Pick<ToolExecution, 'agent' | 'callId'>,
    signal: AbortSignal,
  ): DispatchScope => createDispatchScope(services, context, exec, signal);

  const sync: SyncPhaseRunners = {
    detach: ({ handles: { scopes, calls }, services, context }) => {
      const handles = calls.get(context.callKey);
      const scope = scopes.get(context.scopeKey);
      const detached = detachCall(services, handles, scope, context);
      const seamsPresent = Object.fromEntries(toolSeamKeys.map((key) => [key, scope.seams.has(key)]));
      const base = {
        callId: detached.callId,
        name: detached.name,
        hasFinalizer: detached.finalize !== undefined,
        seamsPresent: seamsPresent as ToolSeamsPresent,
        preparable: isPreparable(detached),
      };
      const outcome = detachOutcomeOf(detached, handles);
      if (outcome === 'invalid-args') return { ...base, outcome, message: detached.argumentsError! };
      return { ...base, outcome };
    },

    guards: ({ handles: liveHandles, context }) => {
      const { handles, exec, scope } = resolve(liveHandles, context);
      const denial = scope.seams.guards(exec);
      if (denial) handles.decidedBy.guard = denial.by;
      return denial ? { denied: denial.denied, by: denial.by } : { denied: null, by: null };
    },

    finalize: ({ handles: liveHandles, context }) => {
      const { sealed, exec } = resolve(liveHandles, context);
      const result = context.result!;
      if (!sealed.finalize) return { result };
      return { result: runFinalizer(sealed.finalize, exec, result) };
    },
  };

  const async: AsyncPhaseRunners = {
    // The fold's input to seal is left in the call table, also when it fails (for finalize and the log).
    prepare: async ({ handles: { scopes, calls }, services, context, signal }) => {
      const handles = calls.get(context.callKey);
      const call = handles.detached;
      if (call === undefined || !isPreparable(call)) {
        throw new Error(`Tool call "${context.callKey}" reached tools/prepare without a preparable input`);
      }
      const scope = scopes.get(context.scopeKey);
      const outcome = await prepareToolInput(
        scope.seams,
        call,
        dispatchScope(services, context, call, signal),
      );
      handles.prepared = outcome.input;
      return outcome.kind === 'prepared'
        ? { outcome: 'prepared' }
        : { outcome: 'refused', result: outcome.result };
    },

    preExecute: async ({ handles: liveHandles, services, context, signal }) => {
      const { handles, exec, scope } = resolve(liveHandles, context);
      const outcome = await scope.seams.waterfall(
        'tools/pre-execute',
        exec,
        { kind: 'allow' },
        dispatchScope(services, context, exec, signal),
      );
      const decider = deciderOf(outcome);
      if (outcome.decision.kind !== 'allow' && decider !== undefined) handles.decidedBy.preExecute = decider;
      return { decision: outcome.decision, decidedBy: outcome.decidedBy };
    },

    approval: async ({ handles: liveHandles, services, context, signal }) => {
      const { handles, exec, scope } = resolve(liveHandles, context);
      const { reason } = context.approval;
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
          ...(reason === null ? {} : { reason }),
          signal: exec.signal,
        });
        const answer = ApprovalAnswerSchema.parse(rawAnswer);
        return typeof answer === 'string' ? { outcome: answer } : answer;
      };
      // `tools/approval` listeners answer before the channel; `next()` falls through to it.
      let answeredBy: string | undefined;
      let verdict: ApprovalVerdict;
      if (scope.seams.has(Seam.approval)) {
        const outcome = await scope.seams.approval(
          { exec, ...(reason === null ? {} : { reason }) },
          ask,
          dispatchScope(services, context, exec, signal),
        );
        verdict = outcome.decision;
        answeredBy = deciderOf(outcome);
      } else verdict = await ask();
      // The bottom of the chain is the channel: it answered unless none was there.
      answeredBy ??= missing === undefined ? APPROVAL_CHANNEL : undefined;
      if (answeredBy !== undefined) handles.decidedBy.approval = answeredBy;
      if (verdict.outcome === 'allowed-once') return { kind: 'granted' };
      // Only a call of a turn's batch can wait for a later answer: its batch suspends the turn.
      if (verdict.outcome === 'deferred' && context.batched && context.turn !== null) {
        return { kind: 'deferred', expiresAt: verdict.expiresAt ?? null };
      }
      if (verdict.outcome === 'deferred') {
        return { kind: 'denied', reason: describeApprovalRefusal(exec.name, 'deferred outside a turn') };
      }
      if (verdict.outcome === 'cancelled' && exec.signal.aborted) return { kind: 'aborted' };
      if (missing && verdict.outcome === 'unavailable') {
        return { kind: 'denied', reason: describeApprovalRefusal(exec.name, missing) };
      }
      return {
        kind: 'denied',
        reason: describeApprovalRefusal(
          exec.name,
          verdict.outcome as Exclude<typeof verdict.outcome, 'deferred' | 'allowed-once'>,
          verdict.reason,
        ),
      };
    },

    dispatch: async ({ handles: liveHandles, services, context, signal }) => {
      const { handles, exec, scope } = resolve(liveHandles, context);
      const callSignal = handles.controller.signal;
      // Stopping the phase (the call was stopped mid-body) must stop the body too; a call whose
      // phase signal is its own needs no link.
      const linked = signal !== callSignal;
      const stop = (): void => handles.controller.abort(signal.reason);
      if (linked) signal.addEventListener('abort', stop, { once: true });
      try {
        const canonical = new WeakSet<ToolResult>();
        const core = createCoreDispatch({
          tools: services.tools,
          cancelGraceMs: services.cancelGraceMs,
          callSignal,
          onBodyStart: () => {
            handles.bodyStarted = true;
          },
          ...(linked ? { stopSignal: signal } : {}),
        });
        const tracked = async (current: ToolExecution): Promise<ToolResult> => {
          const result = await core(current);
          canonical.add(result);
          return result;
        };
        const raw = scope.seams.has('tools/execute')
          ? await scope.seams.around(exec, tracked, dispatchScope(services, context, exec, signal))
          : await tracked(exec);
        let result = canonical.has(raw) ? raw : normalizeAroundResult(raw, exec, services.tools);
        // A success that arrives after the cancel is not trusted: nobody asked for it any more.
        if (callSignal.aborted && !result.isError) {
          const aborted = handles.bodyStarted ? abortedAfterStart() : createAbortedBeforeDispatch();
          result = withContexts(aborted, result.additionalContexts ?? []);
        }
        return { result: withoutContexts(result), contexts: result.additionalContexts ?? [] };
      } finally {
        if (linked) signal.removeEventListener('abort', stop);
      }
    },

    postExecute: async ({ handles: liveHandles, services, context, signal }) => {
      const { exec, scope } = resolve(liveHandles, context);
      const result = assembleResult(context);
      const outcome = await scope.seams.waterfall(
        'tools/post-execute',
        { exec, result },
        { kind: 'accept' },
        dispatchScope(services, context, exec, signal),
      );
      const applied = applyPostDecision(result, outcome.decision, exec, services.tools);
      const decider = deciderOf(outcome);
      const { decision } = outcome;
      const changed = decision.kind === 'block' || decision.content !== undefined || 'value' in decision;
      if (changed && decider !== undefined)
        resolve(liveHandles, context).handles.decidedBy.postExecute = decider;
      return { result: applied.result, contexts: applied.contexts, blocked: applied.blocked };
    },
  };
  return { sync, async };
}

/** Where a call's seam dispatch happens: agent filter, turn, call id, signal, contained-failure sink. */
export function createDispatchScope(
  services: ToolMachineServices,
  input: { readonly turn: number | null; readonly step: number | null },
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
 * How a call goes on once read (what the chart's `detach.done` guards test): its arguments did not
 * parse, it was aborted meanwhile, or it is read.
 * @param detached the call as read
 * @param handles its live handles (its signal)
 */
export function detachOutcomeOf(detached: DetachedCall, handles: CallHandles): DetachOutcome {
  if (detached.argumentsError !== undefined) return 'invalid-args';
  return handles.controller.signal.aborted ? 'pre-aborted' : 'detached';
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
  input: Pick<ToolCallContext, 'turn' | 'step'>,
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
