import type { Violation } from '../types.js';
import { Invariant, violation } from './names.js';
import type { CheckedLog, TurnSegment } from './segment.js';

// Interruptions may close a turn before its prompt is recorded; `interrupted` is crash repair's version.
const PROMPTLESS_REASONS = new Set(['aborted', 'disposed', 'error', 'interrupted']);

/**
 * 8 — a message turn records exactly one `user/message` or `prompt/blocked`, before step 1; a blocked turn
 * has zero steps and ends `rejected` with the same reason; `rejected` only with `prompt/blocked`.
 */
export function checkOneSendOneTurn({ turns }: CheckedLog): Violation[] {
  return turns.filter((turn) => turn.start.data.trigger.kind === 'message').flatMap(checkTurn);
}

function checkTurn(turn: TurnSegment): Violation[] {
  const violations: Violation[] = [];
  const report = (code: string, seq: number | undefined, message: string) =>
    violations.push(violation(Invariant.oneSendOneTurn, code, seq, message));
  const number = turn.start.data.turn;
  const prompts = turn.entries.filter(
    (entry) => entry.type === 'user/message' || entry.type === 'prompt/blocked',
  );
  const [prompt, ...extra] = prompts;
  for (const entry of extra) {
    report(
      'SECOND_PROMPT',
      entry.seq,
      `turn ${number} records ${entry.type} after ${prompt?.type} at seq ${prompt?.seq}`,
    );
  }
  const firstStep = turn.steps[0];
  if (prompt !== undefined && firstStep !== undefined && prompt.seq > firstStep.start.seq) {
    report('PROMPT_AFTER_STEP', prompt.seq, `turn ${number} records its ${prompt.type} after step/start 1`);
  }
  if (prompt === undefined && firstStep !== undefined) {
    report('MISSING_PROMPT', firstStep.start.seq, `turn ${number} starts a step without a user/message`);
  }
  if (prompt?.type === 'prompt/blocked' && firstStep !== undefined) {
    report(
      'BLOCKED_WITH_STEPS',
      firstStep.start.seq,
      `turn ${number} was blocked but runs step ${firstStep.start.data.step}`,
    );
  }
  const end = turn.end;
  if (end === undefined) return violations;
  const reason = end.data.reason;
  if (
    prompt?.type === 'prompt/blocked' &&
    (reason.kind !== 'rejected' || reason.reason !== prompt.data.reason)
  ) {
    report(
      'BLOCKED_NOT_REJECTED',
      end.seq,
      `turn ${number} was blocked (${JSON.stringify(prompt.data.reason)}) but ends ${JSON.stringify(reason)}`,
    );
  }
  if (reason.kind === 'rejected' && prompts.every((entry) => entry.type !== 'prompt/blocked')) {
    report('REJECTED_WITHOUT_BLOCK', end.seq, `turn ${number} ends rejected without a prompt/blocked`);
  }
  if (prompt === undefined && firstStep === undefined && !PROMPTLESS_REASONS.has(reason.kind)) {
    report('MISSING_PROMPT', end.seq, `turn ${number} ends ${reason.kind} without recording its prompt`);
  }
  return violations;
}
