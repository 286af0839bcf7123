import type { Violation } from '../types.js';
import { typeName } from './entries.js';
import { Invariant, violation } from './names.js';
import type { CheckedLog, TurnSegment } from './segment.js';

/**
 * 9 — an injection turn is exactly `turn/start`, `context/message`, `turn/end{completed}`. Crash repair may
 * close one `interrupted`, with or without its context.
 */
export function checkInjectionTurnShape({ turns }: CheckedLog): Violation[] {
  return turns.filter((turn) => turn.start.data.trigger.kind === 'injection').flatMap(checkTurn);
}

function checkTurn(turn: TurnSegment): Violation[] {
  const number = turn.start.data.turn;
  const [first, ...rest] = turn.entries;
  const misplaced = first !== undefined && first.type !== 'context/message' ? first : rest[0];
  if (misplaced !== undefined) {
    return [
      violation(
        Invariant.injectionTurnShape,
        'INJECTION_TURN_SHAPE',
        misplaced.seq,
        `injection turn ${number} contains ${typeName(misplaced)}; expected only one context/message`,
      ),
    ];
  }
  const end = turn.end;
  if (end === undefined) return [];
  const { kind } = end.data.reason;
  if (kind === 'interrupted') return [];
  if (kind !== 'completed') {
    return [
      violation(
        Invariant.injectionTurnShape,
        'INJECTION_TURN_REASON',
        end.seq,
        `injection turn ${number} ends ${kind}, not completed`,
      ),
    ];
  }
  if (first === undefined) {
    return [
      violation(
        Invariant.injectionTurnShape,
        'INJECTION_TURN_EMPTY',
        end.seq,
        `injection turn ${number} has no context/message`,
      ),
    ];
  }
  return [];
}
