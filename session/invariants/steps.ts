import type { Violation } from '../types.js';
import { Invariant, violation } from './names.js';
import type { CheckedLog } from './segment.js';

/** 3 — steps numbered 1, 2, … per turn, never nested, closed before `turn/end`; step facts name the open step. */
export function checkSteps({ entries }: CheckedLog): Violation[] {
  const violations: Violation[] = [];
  const report = (code: string, seq: number, message: string) =>
    violations.push(violation(Invariant.steps, code, seq, message));
  let turn: number | undefined;
  let step: number | undefined;
  let lastStep = 0;
  for (const entry of entries) {
    switch (entry.type) {
      case 'turn/start':
        turn = entry.data.turn;
        step = undefined;
        lastStep = 0;
        break;
      case 'turn/end':
        if (step !== undefined) report('TURN_END_IN_STEP', entry.seq, `turn/end while step ${step} is open`);
        turn = undefined;
        step = undefined;
        break;
      case 'step/start': {
        // Outside a turn is invariant 2's to report.
        if (turn === undefined) break;
        const { data } = entry;
        if (step !== undefined)
          report('STEP_ALREADY_OPEN', entry.seq, `step/start ${data.step} while step ${step} is open`);
        if (data.turn !== turn)
          report(
            'STEP_TURN_MISMATCH',
            entry.seq,
            `step/start names turn ${data.turn}, but turn ${turn} is open`,
          );
        if (data.step !== lastStep + 1) {
          report(
            'STEP_NUMBER',
            entry.seq,
            `expected step/start ${lastStep + 1} in turn ${turn}, got step ${data.step}`,
          );
        }
        step = data.step;
        lastStep = data.step;
        break;
      }
      case 'step/end':
        if (turn === undefined) break;
        if (step === undefined) {
          report(
            'NO_OPEN_STEP',
            entry.seq,
            `step/end (turn ${entry.data.turn}, step ${entry.data.step}) while no step is open`,
          );
        } else if (entry.data.turn !== turn || entry.data.step !== step) {
          report(
            'STEP_MISMATCH',
            entry.seq,
            `step/end names (turn ${entry.data.turn}, step ${entry.data.step}), but (turn ${turn}, step ${step}) is open`,
          );
        }
        step = undefined;
        break;
      case 'assistant/message':
      case 'tool/call':
      case 'tool/result':
        if (turn === undefined) break;
        if (step === undefined) {
          report('OUTSIDE_STEP', entry.seq, `${entry.type} while no step is open`);
        } else if (entry.data.turn !== turn || entry.data.step !== step) {
          report(
            'WRONG_STEP',
            entry.seq,
            `${entry.type} names (turn ${entry.data.turn}, step ${entry.data.step}), but (turn ${turn}, step ${step}) is open`,
          );
        }
        break;
      default:
        break;
    }
  }
  return violations;
}
