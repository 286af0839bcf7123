import type { Violation } from '../types.js';
import { typeName } from './entries.js';
import { Invariant, violation } from './names.js';
import type { CheckedLog } from './segment.js';

/**
 * 2 (amended) — every event but `turn/start` and the durable inbox's `inbox/*` inside an open turn; `turn/start`
 * only when none is open; turns 1, 2, 3, …
 */
export function checkTurnEnclosure({ entries }: CheckedLog): Violation[] {
  const violations: Violation[] = [];
  const report = (code: string, seq: number, message: string) =>
    violations.push(violation(Invariant.turnEnclosure, code, seq, message));
  let open: number | undefined;
  let expected = 1;
  for (const entry of entries) {
    if (entry.type === 'inbox/accepted' || entry.type === 'inbox/discarded') continue;
    if (entry.type === 'turn/start') {
      if (open !== undefined)
        report('TURN_ALREADY_OPEN', entry.seq, `turn/start ${entry.data.turn} while turn ${open} is open`);
      if (entry.data.turn !== expected) {
        report('TURN_NUMBER', entry.seq, `expected turn/start ${expected}, got turn ${entry.data.turn}`);
      }
      open = entry.data.turn;
      // Continue from the number written, so one wrong number is reported once.
      expected = entry.data.turn + 1;
      continue;
    }
    if (open === undefined) {
      report('OUTSIDE_TURN', entry.seq, `${typeName(entry)} while no turn is open`);
      continue;
    }
    if ((entry.type === 'turn/end' || entry.type === 'steering/message') && entry.data.turn !== open) {
      report(
        'TURN_MISMATCH',
        entry.seq,
        `${entry.type} names turn ${entry.data.turn}, but turn ${open} is open`,
      );
    }
    if (entry.type === 'turn/end') open = undefined;
  }
  return violations;
}
