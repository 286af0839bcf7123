import type { Violation } from '../types.js';
import type { Entry } from './entries.js';
import { Invariant, violation } from './names.js';
import type { CheckedLog } from './segment.js';

/** 4 — at rest, as many `turn/end` as `turn/start` and as many `step/end` as `step/start`. */
export function checkBalance({ entries }: CheckedLog): Violation[] {
  return [
    ...compare(entries, 'turn/start', 'turn/end', 'TURNS_UNBALANCED'),
    ...compare(entries, 'step/start', 'step/end', 'STEPS_UNBALANCED'),
  ];
}

function compare(
  entries: readonly Entry[],
  open: Entry['type'],
  close: Entry['type'],
  code: string,
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
  if (opened === closed) return [];
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
