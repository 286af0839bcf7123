import type { TurnSegment } from './segment.js';

/**
 * Whether a turn is suspended on deferred approvals: it has no `turn/end` and its last `turn/suspended` is
 * followed only by answers, held contexts and log-only plugin events (invariants 2–4 accept it as open).
 */
export function isSuspendedTurn(turn: TurnSegment | undefined): boolean {
  if (turn === undefined || turn.end !== undefined) return false;
  for (let index = turn.entries.length - 1; index >= 0; index--) {
    const type = turn.entries[index]!.type;
    if (type === 'turn/suspended') return true;
    if (type !== 'approval/resolved' && type !== 'turn/held-context' && type !== 'plugin') return false;
  }
  return false;
}
