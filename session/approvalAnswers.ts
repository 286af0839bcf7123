import type { CoreEventData, LogEvent } from '../kernel/index.js';
import {
  type ApprovalAnswerInput,
  expiredApprovals,
  findSuspension,
  planApprovalAnswer,
} from './approvals/index.js';
import { createSessionLog } from './log.js';
import type { SessionStore } from './types.js';

/** A pending request as a reader lists it: `expired` when its `expiresAt` has passed (answered `expired` on the next write). */
export interface ListedApproval {
  readonly request: CoreEventData<'approval/requested'>;
  readonly expired: boolean;
}

/**
 * The pending requests of a log's suspended turn, read only (nothing is written: a reader may not hold the
 * session); empty when the log is not suspended.
 * @param events the session log
 * @param now the current time
 */
export function listPendingApprovals(events: readonly LogEvent[], now: Date): ListedApproval[] {
  return (findSuspension(events)?.pending ?? []).map((request) => ({
    request,
    expired: request.expiresAt !== undefined && Date.parse(request.expiresAt) <= now.getTime(),
  }));
}

/** What `recordApprovalAnswer` did. */
export interface RecordedAnswer {
  /** The answer the log holds for the request (the earlier one when the same answer was given again). */
  readonly resolution: CoreEventData<'approval/resolved'>;
  /** `false`: the same answer was already recorded, nothing was written for it. */
  readonly written: boolean;
  /** Requests still pending after the answer (none: the next agent on the session resumes the turn at once). */
  readonly pending: readonly CoreEventData<'approval/requested'>[];
}

/**
 * Records an answer in a session no agent runs on (`seamchart approve`): expired requests are answered
 * `expired` first, then the answer is appended and made durable. A refused answer throws `ApprovalError` and
 * writes nothing. The caller holds the store (its lock) and closes it.
 * @param store the session, opened by the caller
 * @param requestId the request to answer
 * @param answer the answer
 * @param now the current time (expiry)
 */
export async function recordApprovalAnswer(
  store: SessionStore,
  requestId: string,
  answer: ApprovalAnswerInput,
  now: Date = new Date(),
): Promise<RecordedAnswer> {
  const log = createSessionLog({ store });
  for (const data of expiredApprovals(log.events, now)) log.appendCore('approval/resolved', data);
  const plan = planApprovalAnswer(log.events, requestId, answer);
  if (plan.kind === 'write') log.appendCore('approval/resolved', plan.data);
  await log.flush();
  return {
    resolution: plan.data,
    written: plan.kind === 'write',
    pending: findSuspension(log.events)?.pending ?? [],
  };
}
