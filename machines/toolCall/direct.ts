import type { ToolResult } from '../../kernel/index.js';
import type { SeamSet } from '../../seams/index.js';
import { createFailureResult, sealToolCall, withContexts } from '../../tools/index.js';
import type { CallHandles } from '../runtime/index.js';
import { notifyToolResult, reportDefaultDecision } from './notices.js';
import {
  type CallPlace,
  type CallRuntime,
  createToolCallPhases,
  detachCall,
  detachOutcomeOf,
} from './phases.js';
import { createAbortedBeforeDispatch, createPipelineError } from './rules.js';
import { toolSeamKeys } from './types.js';

/** The seams whose listeners decide or wrap: every tool seam but `tools/result`, which only observes. */
const steppedSeams = toolSeamKeys.filter((key) => key !== 'tools/result');

/**
 * Whether a run's calls take the direct path: no listener that decides or wraps, so every phase but
 * the body is a skip and there is nothing to step (read from the run's listener snapshot).
 * @param seams the run's listener snapshot
 */
export function takesDirectPath(seams: SeamSet): boolean {
  return steppedSeams.every((key) => !seams.has(key));
}

/** How a direct call settled: its result (with the body's contexts) and whether post-execute is skipped. */
export interface DirectSettlement {
  readonly result: ToolResult;
  /** A call that failed or was aborted before dispatch skips post-execute, as the chart's `skipPost` says. */
  readonly skipPost: boolean;
}

/** A direct call once read and sealed: it runs its body, or it settled already (bad arguments, aborted). */
export type SealedDirectCall =
  | { readonly runs: true }
  | { readonly runs: false; readonly settled: DirectSettlement };

/**
 * A call on the direct path: sealed and started by its runner (the batch, or a standalone
 * `tools.execute`), finished at its commit. Each step runs with the live handles and services the
 * runner holds (the batch resolves them from its actor system; a standalone call owns its own).
 */
export interface DirectCall {
  /** Detaches and seals the call (synchronously, before its `tool/call` is recorded, as `sealing` does). */
  seal(runtime: CallRuntime, place: CallPlace): SealedDirectCall;
  /**
   * Runs a sealed call's body under its own phase signal (closing the call aborts it); `owned`, a call
   * closed only once it resolved (a standalone call, whose handles it owns), runs it under the call's
   * own signal, with no phase controller. Never rejects: every failure is the call's result.
   */
  run(
    runtime: CallRuntime,
    place: CallPlace,
    sealed: SealedDirectCall,
    owned?: boolean,
  ): Promise<DirectSettlement>;
  /** The empty review, the tool's `finalizeContent` and `tools/result`, as the call's last states run them. */
  finish(runtime: CallRuntime, place: CallPlace, settled: DirectSettlement): ToolResult;
}

/**
 * The toolCall phases for a call whose decision seams are all empty, in the chart's order for that
 * seam configuration (detach, seal; pre-execute's default, dispatch; after the commit post-execute's
 * default, finalize, `tools/result`) and with its outcomes.
 */
function createDirectCall(): DirectCall {
  const phases = createToolCallPhases();
  const seal = ({ handles: liveHandles, services }: CallRuntime, place: CallPlace): SealedDirectCall => {
    // Read as the detach phase reads it (without what only the chart's context needs).
    const { scopes, calls } = liveHandles;
    const handles = calls.get(place.callKey);
    const detached = detachCall(services, handles, scopes.get(place.scopeKey), place);
    // Sealed whatever the outcome, as `sealing` does, so finalize still finds the call.
    handles.sealed ??= sealToolCall(detached);
    // `detach.done` as the chart reads it: invalid-args and pre-aborted settle before any dispatch.
    const outcome = detachOutcomeOf(detached, handles);
    if (outcome === 'invalid-args')
      return skipped(createFailureResult('INVALID_ARGS', detached.argumentsError ?? 'Invalid arguments'));
    if (outcome === 'pre-aborted') return skipped(createAbortedBeforeDispatch());
    return { runs: true };
  };
  // Pre-execute's default, then the body under `signal`.
  const body = async (
    { handles: liveHandles, services }: CallRuntime,
    place: CallPlace,
    handles: CallHandles,
    signal: AbortSignal,
  ): Promise<DirectSettlement> => {
    const { exec } = handles.sealed!;
    const { seams } = liveHandles.scopes.get(place.scopeKey);
    reportDefaultDecision(services, place, exec, 'tools/pre-execute', seams);
    // Nothing is dispatched once the call is aborted (a cancel from a `tool/call` listener), as `dispatching.recording` says.
    if (handles.controller.signal.aborted) return { result: createAbortedBeforeDispatch(), skipPost: true };
    const { result, contexts } = await phases.async.dispatch({
      handles: liveHandles,
      services,
      context: place,
      signal,
    });
    return { result: withContexts(result, contexts), skipPost: false };
  };
  // Under a phase signal of its own, which closing the call aborts (a batch that stopped).
  const run = async (runtime: CallRuntime, place: CallPlace): Promise<DirectSettlement> => {
    const handles = runtime.handles.calls.get(place.callKey);
    const phase = new AbortController();
    handles.phase = phase;
    try {
      return await body(runtime, place, handles, phase.signal);
    } finally {
      if (handles.phase === phase) handles.phase = undefined;
    }
  };
  const runOwned = async (runtime: CallRuntime, place: CallPlace): Promise<DirectSettlement> => {
    const handles = runtime.handles.calls.get(place.callKey);
    return body(runtime, place, handles, handles.controller.signal);
  };
  return {
    seal: (runtime, place) => {
      try {
        return seal(runtime, place);
      } catch (error) {
        return { runs: false, settled: failed(error) };
      }
    },
    run: async (runtime, place, sealed, owned = false) => {
      if (!sealed.runs) return sealed.settled;
      return (owned ? runOwned : run)(runtime, place).catch(failed);
    },
    finish: ({ handles: liveHandles, services }, place, settled) => {
      const { scopes, calls } = liveHandles;
      const exec = calls.find(place.callKey)?.sealed?.exec;
      if (!exec) return settled.result;
      const { seams } = scopes.get(place.scopeKey);
      if (!settled.skipPost) reportDefaultDecision(services, place, exec, 'tools/post-execute', seams);
      let result: ToolResult;
      try {
        const { scopeKey, callKey, turn, step } = place;
        const context = { scopeKey, callKey, turn, step, result: settled.result };
        result = phases.sync.finalize({ handles: liveHandles, services, context }).result;
      } catch (error) {
        result = createPipelineError(error);
      }
      if (seams.has('tools/result')) notifyToolResult(services, place, exec, result);
      return result;
    },
  };
}

/** The direct path's steps (no state of their own: every call's lives in its handles). */
export const directCall: DirectCall = createDirectCall();

/**
 * Runs a standalone call (`tools.execute`, no decision listener) on the direct path to its result,
 * as the chart runs it: read and sealed (an abort before the read settles it before dispatch with no
 * default reported), then the body, then finish.
 * @param runtime the call's own live handles (its scope and call opened) and services
 * @param place where the call is in those handles
 */
export async function runStandaloneDirect(runtime: CallRuntime, place: CallPlace): Promise<ToolResult> {
  const sealed = directCall.seal(runtime, place);
  return directCall.finish(runtime, place, await directCall.run(runtime, place, sealed, true));
}

function skipped(result: ToolResult): SealedDirectCall {
  return { runs: false, settled: { result, skipPost: true } };
}

function failed(error: unknown): DirectSettlement {
  return { result: createPipelineError(error), skipPost: true };
}
