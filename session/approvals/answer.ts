import type { CoreEventData, LogEvent } from '../../kernel/index.js';
import { ApprovalError } from './approvalError.js';
import { approvalRecords, findSuspension } from './suspension.js';

/** An answer given by a person or a program (`agent.resolveApproval`, `seamchart approve`). */
export interface ApprovalAnswerInput {
  readonly outcome: 'allowed-once' | 'rejected';
  readonly reason?: string;
  /** Who answered (a user name, a service). */
  readonly by?: string;
  /** The `argsHash` the answerer saw: a different one is refused as stale. */
  readonly argsHash?: string;
}

/** What an answer does: write `approval/resolved`, or nothing (the same answer was already recorded). */
export type ApprovalPlan =
  | { readonly kind: 'write'; readonly data: CoreEventData<'approval/resolved'> }
  | { readonly kind: 'same'; readonly data: CoreEventData<'approval/resolved'> };

/**
 * Checks an answer against the log and says what to write; a refused answer throws `ApprovalError`
 * (unknown id, a different earlier answer, a stale `argsHash`, a request of a turn that is not suspended).
 * @param events the session log
 * @param requestId the request to answer
 * @param answer the answer
 */
export function planApprovalAnswer(
  events: readonly LogEvent[],
  requestId: string,
  answer: ApprovalAnswerInput,
): ApprovalPlan {
  const record = approvalRecords(events).get(requestId);
  if (record === undefined) {
    throw new ApprovalError(
      'UNKNOWN_APPROVAL',
      requestId,
      `No approval request "${requestId}" in this session; list the pending ones with agent.approvals() (CLI: seamchart approvals FILE)`,
    );
  }
  const { request, resolution } = record;
  if (resolution !== undefined) {
    if (resolution.outcome === answer.outcome) return { kind: 'same', data: resolution };
    throw new ApprovalError(
      'APPROVAL_ALREADY_RESOLVED',
      requestId,
      `Approval request "${requestId}" (${request.tool}) was already resolved ${resolution.outcome}${resolution.by === undefined ? '' : ` by ${resolution.by}`}; it cannot become ${answer.outcome}`,
    );
  }
  if (answer.argsHash !== undefined && answer.argsHash !== request.argsHash) {
    throw new ApprovalError(
      'APPROVAL_STALE',
      requestId,
      `Approval request "${requestId}" (${request.tool}) asks about arguments with argsHash ${request.argsHash}, not ${answer.argsHash}; read the request again before answering`,
    );
  }
  const suspension = findSuspension(events);
  if (suspension === undefined || !suspension.pending.some((pending) => pending.requestId === requestId)) {
    throw new ApprovalError(
      'NOT_SUSPENDED',
      requestId,
      `Approval request "${requestId}" (${request.tool}, turn ${request.turn}) does not belong to a suspended turn of this session; only a suspended turn's pending requests can be answered`,
    );
  }
  return {
    kind: 'write',
    data: {
      requestId,
      outcome: answer.outcome,
      ...(answer.reason === undefined ? {} : { reason: answer.reason }),
      ...(answer.by === undefined ? {} : { by: answer.by }),
      argsHash: request.argsHash,
    },
  };
}

/**
 * The `expired` answers a suspended log owes at `now`: one per pending request whose `expiresAt` has passed.
 * @param events the session log
 * @param now the current time
 */
export function expiredApprovals(
  events: readonly LogEvent[],
  now: Date,
): CoreEventData<'approval/resolved'>[] {
  const suspension = findSuspension(events);
  if (suspension === undefined) return [];
  return suspension.pending
    .filter((request) => request.expiresAt !== undefined && Date.parse(request.expiresAt) <= now.getTime())
    .map((request) => ({
      requestId: request.requestId,
      outcome: 'expired' as const,
      reason: `The approval request expired at ${request.expiresAt}`,
      by: 'expiry',
      argsHash: request.argsHash,
    }));
}

/**
 * The `cancelled` answers a cancel of the suspended turn writes: one per pending request.
 * @param events the session log
 */
export function cancelledApprovals(events: readonly LogEvent[]): CoreEventData<'approval/resolved'>[] {
  const suspension = findSuspension(events);
  if (suspension === undefined) return [];
  return suspension.pending.map((request) => ({
    requestId: request.requestId,
    outcome: 'cancelled' as const,
    by: 'cancel',
    argsHash: request.argsHash,
  }));
}
