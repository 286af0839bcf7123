import type { LogEvent } from '../../kernel/index.js';
import type { Violation } from '../types.js';
import { checkActiveBatchAdjacency } from './activeBatchAdjacency.js';
import { checkApprovalAnswers, checkApprovedBodies, checkSuspensions } from './approvalLedger.js';
import { checkBalance } from './balance.js';
import { checkContiguousSeq } from './contiguousSeq.js';
import { readEntries } from './entries.js';
import { checkInboxLog } from './inboxLog.js';
import { checkInjectionTurnShape } from './injectionTurnShape.js';
import { checkOneSendOneTurn } from './oneSendOneTurn.js';
import { checkRewriteRecord } from './rewriteRecord.js';
import { type CheckedLog, segmentTurns } from './segment.js';
import { type AcceptedStepContexts, checkStepContexts } from './stepContexts.js';
import { checkSteps } from './steps.js';
import { checkTerminalStop } from './terminalStop.js';
import { checkToolPairing } from './toolPairing.js';
import { checkTurnEnclosure } from './turnEnclosure.js';
import { checkTurnEndTotals } from './turnEndTotals.js';

export type { LedgerNotification, LedgerOptions } from './ledger.js';
export { checkLedger } from './ledger.js';
export type { InvariantName } from './names.js';
export { formatViolation, Invariant } from './names.js';
export type { AcceptedStepContexts } from './stepContexts.js';

export interface CheckInvariantsOptions {
  /** Contexts known to have been accepted while a step was in flight: enables invariant 7 for those steps. */
  stepContexts?: readonly AcceptedStepContexts[];
  /** A live or failed session: its last turn (and that turn's last step) may still be open (invariant 4). */
  open?: boolean;
  /** The session is at rest (disposed, or after a resume ran what it re-queued): every waking inbox item ended. */
  atRest?: boolean;
}

const predicates: readonly ((log: CheckedLog, options: CheckInvariantsOptions) => Violation[])[] = [
  checkContiguousSeq,
  checkTurnEnclosure,
  checkSteps,
  (log, options) => checkBalance(log, options.open === true),
  checkToolPairing,
  checkActiveBatchAdjacency,
  checkOneSendOneTurn,
  checkInjectionTurnShape,
  checkTerminalStop,
  (log, options) => checkInboxLog(log, options.atRest === true),
  checkRewriteRecord,
  checkTurnEndTotals,
  checkApprovalAnswers,
  checkApprovedBodies,
  checkSuspensions,
];

/**
 * Checks a log at rest against the invariants of log.md (1–9 and 11–17; 10 is `checkLedger`); a log whose last
 * turn is suspended on deferred approvals counts as at rest.
 * Violations come sorted by seq (log-wide ones, without a seq, last).
 * @param events the session log's events
 * @param options what the caller knows was accepted during steps (invariant 7); `open` for a live or failed
 *   session; `atRest` to demand every waking inbox item ended (invariant 12)
 * @example
 * expect(checkInvariants(agent.log.events).map(formatViolation)).toEqual([]);
 */
export function checkInvariants(
  events: readonly LogEvent[],
  options: CheckInvariantsOptions = {},
): Violation[] {
  const { entries, violations } = readEntries(events);
  const log: CheckedLog = { entries, turns: segmentTurns(entries) };
  for (const predicate of predicates) violations.push(...predicate(log, options));
  if (options.stepContexts !== undefined) violations.push(...checkStepContexts(log, options.stepContexts));
  // Stable: within one seq, predicates keep their numeric order.
  return violations.sort((a, b) => (a.seq ?? Number.POSITIVE_INFINITY) - (b.seq ?? Number.POSITIVE_INFINITY));
}
