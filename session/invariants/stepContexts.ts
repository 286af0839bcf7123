import type { ContentBlock } from '../../kernel/index.js';
import type { Violation } from '../types.js';
import type { Entry } from './entries.js';
import { Invariant, violation } from './names.js';
import type { CheckedLog, StepSegment } from './segment.js';

/** What a test knows was accepted while one step's request or batch was in flight. */
export interface AcceptedStepContexts {
  readonly turn: number;
  readonly step: number;
  /** Content of each accepted context, in acceptance order. */
  readonly contents: readonly (readonly ContentBlock[])[];
}

/**
 * 7 — contexts accepted during a step's request or batch appear after its `assistant/message` and last
 * `tool/result`, before its `step/end`, in acceptance order. Only the caller knows what was accepted, so
 * this runs for the steps it names; without them the log-visible part is invariant 6.
 */
export function checkStepContexts(log: CheckedLog, accepted: readonly AcceptedStepContexts[]): Violation[] {
  return accepted.flatMap((expected) => checkStep(log, expected));
}

function checkStep(log: CheckedLog, expected: AcceptedStepContexts): Violation[] {
  const where = `(turn ${expected.turn}, step ${expected.step})`;
  const step = log.turns
    .filter((turn) => turn.start.data.turn === expected.turn)
    .flatMap((turn) => turn.steps)
    .find((candidate) => candidate.start.data.step === expected.step);
  if (step === undefined) {
    return [
      violation(Invariant.stepContexts, 'STEP_NOT_FOUND', undefined, `step ${where} is not in the log`),
    ];
  }
  const resultsEnd = findResultsEnd(step);
  const violations: Violation[] = [];
  const report = (code: string, seq: number | undefined, message: string) =>
    violations.push(violation(Invariant.stepContexts, code, seq, message));
  let cursor = resultsEnd;
  expected.contents.forEach((content, ordinal) => {
    const label = `context #${ordinal + 1} accepted during step ${where}`;
    const found = findContext(step.entries, content, cursor);
    if (found >= 0) {
      cursor = found + 1;
      return;
    }
    const inStep = findContext(step.entries, content, 0);
    if (inStep >= 0 && inStep < resultsEnd) {
      report('CONTEXT_IN_BATCH', step.entries[inStep]?.seq, `${label} appears before the step's results`);
    } else if (inStep >= 0) {
      report('CONTEXT_ORDER', step.entries[inStep]?.seq, `${label} appears out of acceptance order`);
    } else {
      const elsewhere = log.entries[findContext(log.entries, content, 0)];
      if (elsewhere !== undefined)
        report('CONTEXT_OUTSIDE_STEP', elsewhere.seq, `${label} was appended outside that step`);
      else report('CONTEXT_MISSING', step.end?.seq, `${label} was never appended`);
    }
  });
  return violations;
}

// Index just after the step's answer and its last tool event: step contexts belong after it.
function findResultsEnd(step: StepSegment): number {
  let end = 0;
  step.entries.forEach((entry, index) => {
    if (entry.type === 'assistant/message' || entry.type === 'tool/call' || entry.type === 'tool/result')
      end = index + 1;
  });
  return end;
}

function findContext(entries: readonly Entry[], content: readonly ContentBlock[], from: number): number {
  for (let index = from; index < entries.length; index++) {
    const entry = entries[index];
    if (entry?.type === 'context/message' && sameJson(entry.data.content, content)) return index;
  }
  return -1;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a).filter((key) => (a as Record<string, unknown>)[key] !== undefined);
  const keysB = Object.keys(b).filter((key) => (b as Record<string, unknown>)[key] !== undefined);
  return (
    keysA.length === keysB.length &&
    keysA.every((key) => sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
  );
}
