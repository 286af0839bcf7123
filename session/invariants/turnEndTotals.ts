import type { Usage } from '../../kernel/index.js';
import type { Violation } from '../types.js';
import { addUsage } from '../usage.js';
import { Invariant, violation } from './names.js';
import type { CheckedLog } from './segment.js';

/**
 * 14 — a `turn/end` agrees with its turn: `{ kind: 'max-steps', steps }` names its number of steps, and
 * `usage` is the sum of its `assistant/message` usages (present exactly when one of them has usage).
 */
export function checkTurnEndTotals({ turns }: CheckedLog): Violation[] {
  const violations: Violation[] = [];
  for (const turn of turns) {
    if (turn.end === undefined) continue;
    const { reason, usage } = turn.end.data;
    const number = turn.start.data.turn;
    if (reason.kind === 'max-steps' && reason.steps !== turn.steps.length) {
      violations.push(
        violation(
          Invariant.turnEndTotals,
          'STEP_COUNT_MISMATCH',
          turn.end.seq,
          `turn ${number} ends max-steps after ${reason.steps} steps but records ${turn.steps.length}`,
        ),
      );
    }
    let sum: ReturnType<typeof addUsage>;
    for (const entry of turn.entries) {
      if (entry.type === 'assistant/message') sum = addUsage(sum, (entry.data as { usage?: Usage }).usage);
    }
    if (!sameUsage(sum, usage)) {
      violations.push(
        violation(
          Invariant.turnEndTotals,
          'USAGE_MISMATCH',
          turn.end.seq,
          `turn ${number} ends with usage ${JSON.stringify(usage)} but its steps sum to ${JSON.stringify(sum)}`,
        ),
      );
    }
  }
  return violations;
}

const usageKeys = ['inputTokens', 'outputTokens', 'reasoningTokens', 'cachedInputTokens'] as const;

function sameUsage(a: Usage | undefined, b: Usage | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return usageKeys.every((key) => a[key] === b[key]);
}
