import type { Violation } from '../types.js';
import type { EntryOf } from './entries.js';
import { Invariant, violation } from './names.js';
import type { CheckedLog } from './segment.js';

/** 15 — every `approval/resolved` answers an earlier `approval/requested` of the session at most once, with its `argsHash`. */
export function checkApprovalAnswers({ entries }: CheckedLog): Violation[] {
  const violations: Violation[] = [];
  const requests = new Map<
    string,
    { request: EntryOf<'approval/requested'>; answered: number | undefined }
  >();
  for (const entry of entries) {
    if (entry.type === 'approval/requested') {
      if (requests.has(entry.data.requestId))
        violations.push(
          violation(
            Invariant.approvalAnswers,
            'REQUEST_ID_REUSED',
            entry.seq,
            `approval/requested ${entry.data.requestId} was requested before`,
          ),
        );
      else requests.set(entry.data.requestId, { request: entry, answered: undefined });
    } else if (entry.type === 'approval/resolved') {
      const { requestId, argsHash } = entry.data;
      const record = requests.get(requestId);
      if (record === undefined) {
        violations.push(
          violation(
            Invariant.approvalAnswers,
            'ANSWER_WITHOUT_REQUEST',
            entry.seq,
            `approval/resolved ${requestId} answers no earlier approval/requested`,
          ),
        );
      } else if (record.answered !== undefined) {
        violations.push(
          violation(
            Invariant.approvalAnswers,
            'ANSWERED_TWICE',
            entry.seq,
            `approval/resolved ${requestId} answers a request already answered at seq ${record.answered}`,
          ),
        );
      } else {
        record.answered = entry.seq;
        if (argsHash !== record.request.data.argsHash)
          violations.push(
            violation(
              Invariant.approvalAnswers,
              'ARGS_HASH_MISMATCH',
              entry.seq,
              `approval/resolved ${requestId} carries argsHash ${argsHash}, not the request's ${record.request.data.argsHash}`,
            ),
          );
      }
    }
  }
  return violations;
}

const denialCodes = new Set([
  'DENIED',
  'ABORTED_BEFORE_DISPATCH',
  'PIPELINE_ERROR',
  'INVALID_ARGS',
  'BLOCKED',
]);

/**
 * 16 — a call with an `approval/requested` has a body outcome (a success, a tool failure, a timeout, `ABORTED`,
 * `TOOL_OUTCOME_UNKNOWN`) only after an `allowed-once` answer to its (latest) request; any other answer gives it a
 * denial result.
 */
export function checkApprovedBodies({ turns }: CheckedLog): Violation[] {
  const violations: Violation[] = [];
  for (const turn of turns) {
    for (const step of turn.steps) {
      // The latest request of each call, and the answer it got so far.
      const latest = new Map<string, { requestId: string; outcome: string | undefined }>();
      const byRequest = new Map<string, { callId: string }>();
      for (const entry of step.entries) {
        if (entry.type === 'approval/requested') {
          latest.set(entry.data.callId, { requestId: entry.data.requestId, outcome: undefined });
          byRequest.set(entry.data.requestId, { callId: entry.data.callId });
        } else if (entry.type === 'approval/resolved') {
          const call = byRequest.get(entry.data.requestId);
          const record = call && latest.get(call.callId);
          if (record && record.requestId === entry.data.requestId && record.outcome === undefined)
            record.outcome = entry.data.outcome;
        } else if (entry.type === 'tool/result') {
          const record = latest.get(entry.data.callId);
          if (record === undefined) continue;
          const code = entry.data.isError ? entry.data.error?.code : undefined;
          const denial = code !== undefined && denialCodes.has(code);
          if (!denial && record.outcome !== 'allowed-once') {
            violations.push(
              violation(
                Invariant.approvedBodies,
                'BODY_WITHOUT_GRANT',
                entry.seq,
                `tool/result ${entry.data.callId} has a body outcome${code ? ` (${code})` : ''}, but its approval ${record.requestId} was ${record.outcome ?? 'never answered'}`,
              ),
            );
          }
        }
      }
    }
  }
  return violations;
}

/**
 * 17 — each `turn/suspended` lists exactly its step's unanswered requests, and is followed by `turn/resumed` or by
 * its `turn/end` `aborted` (or ends the log: the turn is still suspended).
 */
export function checkSuspensions({ turns }: CheckedLog): Violation[] {
  const violations: Violation[] = [];
  for (const turn of turns) {
    const requested = new Map<string, number>();
    const answered = new Set<string>();
    let open: EntryOf<'turn/suspended'> | undefined;
    // A suspension left without turn/resumed: only a cancel may do that, so the turn must end aborted.
    let left: EntryOf<'turn/suspended'> | undefined;
    for (const entry of turn.entries) {
      if (entry.type === 'approval/requested') requested.set(entry.data.requestId, entry.data.step);
      else if (entry.type === 'approval/resolved') answered.add(entry.data.requestId);
      else if (entry.type === 'turn/resumed') open = undefined;
      else if (entry.type === 'turn/suspended') {
        if (open !== undefined)
          violations.push(
            violation(
              Invariant.suspensions,
              'SUSPENDED_TWICE',
              entry.seq,
              `turn/suspended while the turn is suspended since seq ${open.seq}`,
            ),
          );
        open = entry;
        const expected = [...requested]
          .filter(([id, step]) => step === entry.data.step && !answered.has(id))
          .map(([id]) => id)
          .sort();
        const listed = [...entry.data.pending].sort();
        if (expected.join(',') !== listed.join(','))
          violations.push(
            violation(
              Invariant.suspensions,
              'PENDING_MISMATCH',
              entry.seq,
              `turn/suspended lists pending [${listed.join(', ')}], but step ${entry.data.step}'s unanswered requests are [${expected.join(', ')}]`,
            ),
          );
      } else if (open !== undefined && entry.type !== 'turn/held-context' && entry.type !== 'plugin') {
        left = open;
        open = undefined;
      }
    }
    const unresumed = open ?? left;
    if (unresumed !== undefined && turn.end !== undefined && turn.end.data.reason.kind !== 'aborted') {
      violations.push(
        violation(
          Invariant.suspensions,
          'SUSPENSION_NOT_RESUMED',
          turn.end.seq,
          `turn/end ${turn.end.data.reason.kind} after turn/suspended at seq ${unresumed.seq} without turn/resumed: a suspended turn resumes or ends aborted`,
        ),
      );
    }
  }
  return violations;
}
