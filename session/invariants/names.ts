import type { Violation } from '../types.js';

/** The invariant of each violation: number and name, as `Violation.invariant` carries them. */
export const Invariant = {
  /** Ours, not in log.md: a core event whose data does not match its schema cannot be checked. */
  eventData: '0 event-data',
  contiguousSeq: '1 contiguous-seq',
  turnEnclosure: '2 turn-enclosure',
  steps: '3 steps',
  balance: '4 balance',
  toolPairing: '5 tool-pairing',
  activeBatchAdjacency: '6 active-batch-adjacency',
  stepContexts: '7 step-contexts',
  oneSendOneTurn: '8 one-send-one-turn',
  injectionTurnShape: '9 injection-turn-shape',
  inboxLedger: '10 inbox-ledger',
  terminalStop: '11 terminal-stop',
  inboxLog: '12 inbox-log',
  rewriteRecord: '13 rewrite-record',
  /** Milestone 2 (model-io.md): `max-steps.steps` and `usage` on `turn/end` agree with the turn's steps. */
  turnEndTotals: '14 turn-end-totals',
  /** Milestone 3 (approvals.md): deferred approvals and suspended turns. */
  approvalAnswers: '15 approval-answers',
  approvedBodies: '16 approved-bodies',
  suspensions: '17 suspensions',
} as const;
export type InvariantName = (typeof Invariant)[keyof typeof Invariant];

/** Builds one frozen violation. */
export function violation(
  invariant: InvariantName,
  code: string,
  seq: number | undefined,
  message: string,
): Violation {
  return Object.freeze({ code, invariant, seq, message });
}

/**
 * Turns a violation into one line of text.
 * @param v the violation
 */
export function formatViolation(v: Violation): string {
  const where = v.seq === undefined ? '' : ` at seq ${v.seq}`;
  return `invariant ${v.invariant} violated${where}: ${v.message} [${v.code}]`;
}
