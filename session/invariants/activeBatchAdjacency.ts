import type { Violation } from '../types.js';
import { isUserSide } from './entries.js';
import { Invariant, violation } from './names.js';
import type { CheckedLog, StepSegment } from './segment.js';

/**
 * 6 — no user, context or steering message between `step/start` and the step's `assistant/message`, nor
 * between an `assistant/message` with tool calls and the step's last `tool/result`.
 */
export function checkActiveBatchAdjacency({ turns }: CheckedLog): Violation[] {
  return turns.flatMap((turn) => turn.steps.flatMap(checkStep));
}

function checkStep(step: StepSegment): Violation[] {
  const { entries } = step;
  const answer = entries.findIndex((entry) => entry.type === 'assistant/message');
  // A failed request has no answer: its step FIFO is appended before step/end, which is allowed.
  if (answer < 0) return [];
  const answerEntry = entries[answer];
  const hasCalls =
    answerEntry?.type === 'assistant/message' &&
    answerEntry.data.content.some((block) => block.type === 'tool-call');
  let batchEnd = answer;
  if (hasCalls) {
    entries.forEach((entry, index) => {
      if (entry.type === 'tool/result') batchEnd = index;
    });
  }
  const where = `(turn ${step.start.data.turn}, step ${step.start.data.step})`;
  const violations: Violation[] = [];
  entries.forEach((entry, index) => {
    if (!isUserSide(entry) || index > batchEnd) return;
    const window =
      index < answer ? `before step ${where}'s assistant/message` : `inside step ${where}'s tool batch`;
    violations.push(
      violation(
        Invariant.activeBatchAdjacency,
        'MESSAGE_IN_ACTIVE_STEP',
        entry.seq,
        `${entry.type} ${window}`,
      ),
    );
  });
  return violations;
}
