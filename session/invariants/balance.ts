import type { Violation } from '../types.js';
import type { Entry } from './entries.js';
import { Invariant, violation } from './names.js';
import type { CheckedLog } from './segment.js';
import { isSuspendedTurn } from './suspendedTurn.js';

/**
 * 4 — at rest, as many `turn/end` as `turn/start` and as many `step/end` as `step/start`. With `open` (a live or
 * failed session), or when the last turn is suspended, the last turn and its last step may still be open.
 */
export function checkBalance({ entries, turns }: CheckedLog, open = false): Violation[] {
  const last = turns.at(-1);
  // A turn suspended on deferred approvals is at rest while it waits (approvals.md).
  const openTurn = (open || isSuspendedTurn(last)) && last !== undefined && last.end === undefined ? 1 : 0;
  const openStep = openTurn === 1 && last?.steps.at(-1)?.end === undefined && last?.steps.length ? 1 : 0;
  return [
    ...compare(entries, 'turn/start', 'turn/end', 'TURNS_UNBALANCED', openTurn),
    ...compare(entries, 'step/start', 'step/end', 'STEPS_UNBALANCED', openStep),
  ];
}

function compare(
  entries: readonly Entry[],
  open: Entry['type'],
  close: Entry['type'],
  code: string,
  allowedOpen: number,
): Violation[] {
  let opened = 0;
  let closed = 0;
  let lastOpen: number | undefined;
  for (const entry of entries) {
    if (entry.type === open) {
      opened++;
      lastOpen = entry.seq;
    } else if (entry.type === close) {
      closed++;
    }
  }
  if (opened === closed + allowedOpen) return [];
  // Point at the last opener: after a crash that is the one left open.
  return [
    violation(
      Invariant.balance,
      code,
      opened > closed ? lastOpen : undefined,
      `${opened} ${open} but ${closed} ${close}`,
    ),
  ];
}
