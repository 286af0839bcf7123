import { describe, expect, it } from 'vitest';
import type { Usage } from '../../../kernel/index.js';
import { repairEvents } from '../../../session/index.js';
import { am, found, logOf, sm, ss, step, te, ts, um } from './build.js';

/** An assistant message of `step` that reports `usage`. */
const amUsage = (turn: number, step: number, usage: Usage) => {
  const draft = am(turn, step) as { type: string; data: Record<string, unknown> };
  return { type: draft.type, data: { ...draft.data, usage } };
};
const teUsage = (turn: number, usage: unknown, reason: unknown = { kind: 'completed' }) => ({
  type: 'turn/end',
  data: { turn, reason, usage },
});

describe('14 turn-end-totals', () => {
  it('accepts a max-steps end naming its step count, with steps that continue', () => {
    const log = logOf(ts(1), um(), ...step(1, 1), ...step(1, 2), te(1, { kind: 'max-steps', steps: 2 }));
    expect(found(log)).toEqual([]);
  });

  it('reports a max-steps end whose step count is not the turn’s', () => {
    const log = logOf(ts(1), um(), ...step(1, 1), te(1, { kind: 'max-steps', steps: 3 }));
    expect(found(log)).toEqual([['14 turn-end-totals', 5, 'STEP_COUNT_MISMATCH']]);
  });

  it('reports steering after the last step of a turn ended at the step cap (as 11)', () => {
    const log = logOf(ts(1), um(), ...step(1, 1), sm(1), te(1, { kind: 'max-steps', steps: 1 }));
    expect(found(log)).toEqual([['11 terminal-stop', 5, 'STEERING_AFTER_STOP']]);
  });

  it('accepts a turn/end usage that is the sum of its steps, optional counts included', () => {
    const log = logOf(
      ts(1),
      um(),
      ...step(1, 1, amUsage(1, 1, { inputTokens: 10, outputTokens: 2, cachedInputTokens: 4 })),
      ...step(1, 2, amUsage(1, 2, { inputTokens: 15, outputTokens: 3, reasoningTokens: 1 })),
      teUsage(1, { inputTokens: 25, outputTokens: 5, reasoningTokens: 1, cachedInputTokens: 4 }),
    );
    expect(found(log)).toEqual([]);
  });

  it('reports a usage that differs from the sum, and one missing although a step reported usage', () => {
    const steps = [...step(1, 1, amUsage(1, 1, { inputTokens: 10, outputTokens: 2 }))];
    expect(found(logOf(ts(1), um(), ...steps, teUsage(1, { inputTokens: 10, outputTokens: 3 })))).toEqual([
      ['14 turn-end-totals', 5, 'USAGE_MISMATCH'],
    ]);
    expect(found(logOf(ts(1), um(), ...steps, te(1)))).toEqual([['14 turn-end-totals', 5, 'USAGE_MISMATCH']]);
  });

  it('reports a usage on a turn whose steps reported none', () => {
    const log = logOf(ts(1), um(), ...step(1, 1), teUsage(1, { inputTokens: 0, outputTokens: 0 }));
    expect(found(log)).toEqual([['14 turn-end-totals', 5, 'USAGE_MISMATCH']]);
  });

  it('refuses a max-steps reason without a positive step count', () => {
    const log = logOf(ts(1), um(), te(1, { kind: 'max-steps' } as never));
    expect(found(log).map(([, , code]) => code)).toContain('INVALID_EVENT_DATA');
  });

  it('crash repair closes an open turn with the usage its steps reported', () => {
    const log = logOf(ts(1), um(), ss(1, 1), amUsage(1, 1, { inputTokens: 7, outputTokens: 1 }));
    const { events } = repairEvents(log);
    expect(events.at(-1)).toEqual({
      type: 'turn/end',
      data: { turn: 1, reason: { kind: 'interrupted' }, usage: { inputTokens: 7, outputTokens: 1 } },
    });
    const repaired = logOf(...log.map(({ type, data }) => ({ type, data })), ...events);
    expect(found(repaired)).toEqual([]);
  });
});
