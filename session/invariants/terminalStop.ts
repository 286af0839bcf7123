import type { Violation } from '../types.js';
import { Invariant, violation } from './names.js';
import type { CheckedLog } from './segment.js';

/**
 * 11 — a turn ended with `stoppedBy` records no `steering/message` after its last `step/end`; nor does a
 * turn ended at the step cap (`max-steps`).
 */
export function checkTerminalStop({ turns }: CheckedLog): Violation[] {
  const violations: Violation[] = [];
  for (const turn of turns) {
    const reason = turn.end?.data.reason;
    const stoppedBy =
      reason?.kind === 'max-steps'
        ? 'the step cap'
        : reason?.kind === 'completed'
          ? reason.stoppedBy
          : undefined;
    if (stoppedBy === undefined) continue;
    let afterLastStep = 0;
    turn.entries.forEach((entry, index) => {
      if (entry.type === 'step/end') afterLastStep = index + 1;
    });
    for (const entry of turn.entries.slice(afterLastStep)) {
      if (entry.type !== 'steering/message') continue;
      violations.push(
        violation(
          Invariant.terminalStop,
          'STEERING_AFTER_STOP',
          entry.seq,
          `turn ${turn.start.data.turn} was stopped by ${stoppedBy} but records steering after its last step`,
        ),
      );
    }
  }
  return violations;
}
