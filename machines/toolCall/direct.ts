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
import type { ToolSeamKey } from './types.js';

/** The seams whose listeners decide or wrap (observers of `tools/result` and `seam/decided` only watch). */
const steppedSeams: readonly ToolSeamKey[] = [
  'tools/prepare',
  'tools/pre-execute',
  'guard',
  'tools/execute',
  'tools/post-execute',
];

/**
 * Whether a run's calls take the direct path: no listener that decides or wraps, so every phase but
 * the body is a skip and there is nothing to step (read from the run's listener snapshot).
 * @param seams the run's listener snapshot
 */
export function takesDirectPath(seams: SeamSet): boolean {
  return steppedSeams.every((key) => !seams.has(key));
}

/** How a direct call settled: its result (with the body's contexts) and whether post-execute reviews it. */
export interface DirectSettlement {
  readonly result: ToolResult;
  /** False for a call that failed or was aborted before dispatch: post-execute is skipped, as `skipPost` says. */
  readonly reviewed: boolean;
}

/** A call on the direct path: started by the batch, finished at its commit. */
export interface DirectCall {
  /**
   * Detaches and seals the call, then runs its body under its own phase signal (closing the call
   * aborts it). Never rejects: every failure is the call's result.
   */
  start(system: ActorSystem<any>, place: CallPlace): Promise<DirectSettlement>;
  /** The empty review, the tool's `finalizeContent` and `tools/result`, as the call's last states run them. */
  finish(system: ActorSystem<any>, place: CallPlace, settled: DirectSettlement): ToolResult;
}

/**
 * The toolCall phases for a call whose decision seams are all empty, in the chart's order for that
 * seam configuration (detach, seal, pre-execute's default, dispatch; after the commit post-execute's
 * default, finalize, `tools/result`) and with its outcomes.
 * @param servicesOf where the phases find tools, scopes and cancel grace
 */
export function createDirectCall(servicesOf: ServicesResolver<ToolMachineServices>): DirectCall {
  const phases = createToolCallPhases(servicesOf);
  const skipped = (result: ToolResult): DirectSettlement => ({ result, reviewed: false });
  const start = async (system: ActorSystem<any>, place: CallPlace): Promise<DirectSettlement> => {
    const services = servicesOf({ system });
    const detached = phases.sync.detach({ system, context: place });
    // Sealed whatever the outcome, as `sealing` does, so finalize still finds the call.
    const { scopes, calls } = liveHandlesOf(system);
    const handles = calls.get(place.callKey);
    handles.sealed ??= sealToolCall(detachCall(services, handles, scopes.get(place.scopeKey), place));
    const { exec } = handles.sealed;
    // `detach.done` as the chart reads it: invalid-args and pre-aborted settle before any dispatch.
    if (detached.outcome === 'invalid-args')
      return skipped(createFailureResult('INVALID_ARGS', detached.message ?? 'Invalid arguments'));
    if (detached.outcome === 'pre-aborted') return skipped(createAbortedBeforeDispatch());
    reportDefaultDecision(services, place, exec, 'tools/pre-execute', scopes.get(place.scopeKey).seams);
    const phase = new AbortController();
    handles.phase = phase;
    const { result, contexts } = await phases.async
      .dispatch({ system, context: place, signal: phase.signal })
      .finally(() => {
        if (handles.phase === phase) handles.phase = undefined;
      });
    return { result: withContexts(result, contexts), reviewed: true };
  };
  return {
    start: (system, place) =>
      start(system, place).catch((error: unknown) => skipped(createPipelineError(error))),
    finish: (system, place, settled) => {
      const services = servicesOf({ system });
      const { scopes, calls } = liveHandlesOf(system);
      const exec = calls.has(place.callKey) ? calls.get(place.callKey).sealed?.exec : undefined;
      if (!exec) return settled.result;
      const { seams } = scopes.get(place.scopeKey);
      if (settled.reviewed) reportDefaultDecision(services, place, exec, 'tools/post-execute', seams);
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
