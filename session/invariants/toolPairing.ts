import type { Violation } from '../types.js';
import { Invariant, violation } from './names.js';
import type { CheckedLog, StepSegment } from './segment.js';

/**
 * 5 — each tool-call block of a step's `assistant/message` gets exactly one `tool/call` and one `tool/result`
 * in that step, results in model order, each after its call. Completeness is checked once the step has ended.
 */
export function checkToolPairing({ turns }: CheckedLog): Violation[] {
  return turns.flatMap((turn) => turn.steps.flatMap(checkStep));
}

interface CallState {
  readonly order: number;
  call: number | undefined;
  result: number | undefined;
}

function checkStep(step: StepSegment): Violation[] {
  const violations: Violation[] = [];
  const report = (code: string, seq: number | undefined, message: string) =>
    violations.push(violation(Invariant.toolPairing, code, seq, message));
  const where = `(turn ${step.start.data.turn}, step ${step.start.data.step})`;
  const calls = new Map<string, CallState>();
  let lastResultOrder = -1;
  let lastResultId: string | undefined;
  for (const entry of step.entries) {
    if (entry.type === 'assistant/message') {
      for (const block of entry.data.content) {
        if (block.type !== 'tool-call') continue;
        if (calls.has(block.id))
          report('DUPLICATE_BLOCK_ID', entry.seq, `tool-call id ${block.id} appears twice in step ${where}`);
        else calls.set(block.id, { order: calls.size, call: undefined, result: undefined });
      }
    } else if (entry.type === 'tool/call') {
      const state = calls.get(entry.data.callId);
      if (state === undefined) {
        report(
          'CALL_WITHOUT_BLOCK',
          entry.seq,
          `tool/call ${entry.data.callId} has no tool-call block in step ${where}`,
        );
      } else if (state.call !== undefined) {
        report(
          'DUPLICATE_CALL',
          entry.seq,
          `second tool/call ${entry.data.callId} (first at seq ${state.call})`,
        );
      } else {
        state.call = entry.seq;
      }
    } else if (entry.type === 'tool/result') {
      const { callId } = entry.data;
      const state = calls.get(callId);
      if (state?.call === undefined) {
        report(
          'RESULT_WITHOUT_CALL',
          entry.seq,
          `tool/result ${callId} without an earlier tool/call in step ${where}`,
        );
        continue;
      }
      if (state.result !== undefined) {
        report('DUPLICATE_RESULT', entry.seq, `second tool/result ${callId} (first at seq ${state.result})`);
        continue;
      }
      state.result = entry.seq;
      if (state.order < lastResultOrder) {
        report(
          'RESULT_ORDER',
          entry.seq,
          `tool/result ${callId} comes after ${lastResultId}'s, against model order`,
        );
      } else {
        lastResultOrder = state.order;
        lastResultId = callId;
      }
    }
  }
  // While the step is open its calls may still be running; balance (4) reports a step left open.
  if (step.end === undefined) return violations;
  for (const [callId, state] of calls) {
    if (state.call === undefined)
      report('MISSING_CALL', step.end.seq, `tool-call block ${callId} has no tool/call before step/end`);
    if (state.result === undefined) {
      report('MISSING_RESULT', step.end.seq, `tool-call block ${callId} has no tool/result before step/end`);
    }
  }
  return violations;
}
