import type { ToolResult } from '../../kernel/index.js';
import { describeThrown } from '../../kernel/index.js';
import type { SeamSet, ToolExecution } from '../../seams/index.js';
import { createDecidedNotice } from '../../seams/index.js';
import type { ToolMachineServices } from '../runtime/index.js';
import { createDispatchScope } from './phases.js';
import type { ToolCallContext } from './types.js';

/** Where a notice comes from: the call's turn and step. */
type NoticePlace = Pick<ToolCallContext, 'turn' | 'step'>;

const defaultDecisions = {
  'tools/pre-execute': { kind: 'allow' },
  'tools/post-execute': { kind: 'accept' },
} as const;

/**
 * A waterfall with no listener is skipped; its default decision is still reported as `seam/decided`
 * when the run's snapshot has an observer (as for every notify seam, one added later sees the next run).
 */
export function reportDefaultDecision(
  services: ToolMachineServices,
  place: NoticePlace,
  exec: ToolExecution,
  seam: keyof typeof defaultDecisions,
  snapshot: SeamSet,
): void {
  if (!snapshot.has('seam/decided')) return;
  try {
    const scope = createDispatchScope(services, place, exec, exec.signal);
    services.seams.notify(
      'seam/decided',
      createDecidedNotice(seam, 'default', defaultDecisions[seam], scope),
      scope,
    );
  } catch (error) {
    reportNoticeFailure(services, 'seam/decided', error, place, exec.callId);
  }
}

/** `tools/result` observers see the final result; a failing one is reported, never thrown. */
export function notifyToolResult(
  services: ToolMachineServices,
  place: NoticePlace,
  exec: ToolExecution,
  result: ToolResult,
): void {
  try {
    services.seams.notify(
      'tools/result',
      { exec, result },
      createDispatchScope(services, place, exec, exec.signal),
    );
  } catch (error) {
    reportNoticeFailure(services, 'tools/result', error, place, exec.callId);
  }
}

/** A contained failure of a call's side effect, through `services.reportError`. */
export function reportNoticeFailure(
  services: ToolMachineServices,
  origin: string,
  error: unknown,
  place: NoticePlace,
  callId: string,
): void {
  services.reportError?.({
    error: { message: `${origin} failed for tool call "${callId}": ${describeThrown(error)}` },
    origin,
    ...(place.turn === null ? {} : { turn: place.turn }),
    ...(place.step === null ? {} : { step: place.step }),
  });
}
