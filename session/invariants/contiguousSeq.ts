import type { Violation } from '../types.js';
import { Invariant, violation } from './names.js';
import type { CheckedLog } from './segment.js';

/** 1 — `events[i].seq === i`; one violation per gap, not one per shifted event. */
export function checkContiguousSeq({ entries }: CheckedLog): Violation[] {
  const violations: Violation[] = [];
  let expected = 0;
  for (const entry of entries) {
    if (entry.seq !== expected) {
      violations.push(
        violation(
          Invariant.contiguousSeq,
          'SEQ_GAP',
          entry.seq,
          `expected seq ${expected}, got ${entry.seq}`,
        ),
      );
    }
    expected = entry.seq + 1;
  }
  return violations;
}
