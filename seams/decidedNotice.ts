import type { JsonValue } from '../kernel/index.js';
import type { DecidedSeamName, DispatchScope, PrepareStep, SeamCtx } from './types.js';

type DecidedNotice = SeamCtx<'seam/decided'>;

/**
 * The `seam/decided` payload, for a dispatched chain and for a skipped one's default alike. Written
 * out (no leading spread, decision 24): seam, decidedBy, decision, steps, then the scope's place.
 * @param scope where the decision was taken (agent, turn, call)
 */
export function createDecidedNotice(
  seam: DecidedSeamName,
  decidedBy: string,
  decision: unknown,
  scope: Pick<DispatchScope, 'agentId' | 'turn' | 'callId'>,
  steps?: readonly PrepareStep[],
): DecidedNotice {
  const notice: { -readonly [K in keyof DecidedNotice]: DecidedNotice[K] } = {
    seam,
    decidedBy,
    decision: decision as JsonValue,
  };
  if (steps !== undefined) notice.steps = steps;
  if (scope.agentId !== undefined) notice.agentId = scope.agentId;
  if (scope.turn !== undefined) notice.turn = scope.turn;
  if (scope.callId !== undefined) notice.callId = scope.callId;
  return notice;
}
