import type { ActorSystem } from 'xstate';
import type { ToolResult } from '../../kernel/index.js';
import type { SeamSet } from '../../seams/types.js';
import { createFailureResult, sealToolCall, withContexts } from '../../tools/index.js';
import { liveHandlesOf } from '../runtime/liveHandles.js';
import type { ToolMachineServices } from '../runtime/services.js';
import type { ServicesResolver } from '../runtime/systemServices.js';
import { notifyToolResult, reportDefaultDecision } from './notices.js';
import { type CallPlace, createToolCallPhases, detachCall } from './phases.js';
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

/** A call on the direct path: sealed and started by the batch, finished at its commit. */
export interface DirectCall {
  /** Detaches and seals the call (synchronously, before its `tool/call` is recorded, as `sealing` does). */
  seal(system: ActorSystem<any>, place: CallPlace): SealedDirectCall;
  /**
   * Runs a sealed call's body under its own phase signal (closing the call aborts it). Never rejects:
   * every failure is the call's result.
   */
  run(system: ActorSystem<any>, place: CallPlace, sealed: SealedDirectCall): Promise<DirectSettlement>;
  /** The empty review, the tool's `finalizeContent` and `tools/result`, as the call's last states run them. */
  finish(system: ActorSystem<any>, place: CallPlace, settled: DirectSettlement): ToolResult;
}

/**
 * The toolCall phases for a call whose decision seams are all empty, in the chart's order for that
 * seam configuration (detach, seal; pre-execute's default, dispatch; after the commit post-execute's
 * default, finalize, `tools/result`) and with its outcomes.
 * @param servicesOf where the phases find tools, scopes and cancel grace
 */
export function createDirectCall(servicesOf: ServicesResolver<ToolMachineServices>): DirectCall {
  const phases = createToolCallPhases(servicesOf);
  const skipped = (result: ToolResult): SealedDirectCall => ({
    runs: false,
    settled: { result, skipPost: true },
  });
  const seal = (system: ActorSystem<any>, place: CallPlace): SealedDirectCall => {
    const detached = phases.sync.detach({ system, context: place });
    // Sealed whatever the outcome, as `sealing` does, so finalize still finds the call.
    const { scopes, calls } = liveHandlesOf(system);
    const handles = calls.get(place.callKey);
    handles.sealed ??= sealToolCall(
      detachCall(servicesOf({ system }), handles, scopes.get(place.scopeKey), place),
    );
    // `detach.done` as the chart reads it: invalid-args and pre-aborted settle before any dispatch.
    if (detached.outcome === 'invalid-args')
      return skipped(createFailureResult('INVALID_ARGS', detached.message ?? 'Invalid arguments'));
    if (detached.outcome === 'pre-aborted') return skipped(createAbortedBeforeDispatch());
    return { runs: true };
  };
  const run = async (system: ActorSystem<any>, place: CallPlace): Promise<DirectSettlement> => {
    const { scopes, calls } = liveHandlesOf(system);
    const handles = calls.get(place.callKey);
    const { exec } = handles.sealed!;
    reportDefaultDecision(
      servicesOf({ system }),
      place,
      exec,
      'tools/pre-execute',
      scopes.get(place.scopeKey).seams,
    );
    const phase = new AbortController();
    handles.phase = phase;
    const { result, contexts } = await phases.async
      .dispatch({ system, context: place, signal: phase.signal })
      .finally(() => {
        if (handles.phase === phase) handles.phase = undefined;
      });
    return { result: withContexts(result, contexts), skipPost: false };
  };
  const failed = (error: unknown): DirectSettlement => ({
    result: createPipelineError(error),
    skipPost: true,
  });
  return {
    seal: (system, place) => {
      try {
        return seal(system, place);
      } catch (error) {
        return { runs: false, settled: failed(error) };
      }
    },
    run: async (system, place, sealed) => {
      if (!sealed.runs) return sealed.settled;
      return run(system, place).catch(failed);
    },
    finish: (system, place, settled) => {
      const services = servicesOf({ system });
      const { scopes, calls } = liveHandlesOf(system);
      const exec = calls.has(place.callKey) ? calls.get(place.callKey).sealed?.exec : undefined;
      if (!exec) return settled.result;
      const { seams } = scopes.get(place.scopeKey);
      if (!settled.skipPost) reportDefaultDecision(services, place, exec, 'tools/post-execute', seams);
      let result: ToolResult;
      try {
        const { scopeKey, callKey, turn, step } = place;
        const context = { scopeKey, callKey, turn, step, result: settled.result };
        result = phases.sync.finalize({ system, context }).result;
      } catch (error) {
        result = createPipelineError(error);
      }
      if (seams.has('tools/result')) notifyToolResult(services, place, exec, result);
      return result;
    },
  };
}
