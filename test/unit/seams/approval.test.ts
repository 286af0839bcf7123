import { describe, expect, it, vi } from 'vitest';
import { Seam } from '../../../seams/index.js';
import { createFixture } from '../tools/fixtures.js';

const call = (text = 'hi') => ({ name: 'echo', arguments: JSON.stringify({ text }), callId: 'c1' });

describe('tools/approval: answers an ask before the approval channel', () => {
  it('a listener answers without any channel; seam/decided names it', async () => {
    const { tools, seams } = createFixture();
    seams.on(Seam.preExecute, () => ({ kind: 'ask', reason: 'loud' }));
    const seen: unknown[] = [];
    seams.on(
      Seam.approval,
      (ctx) => {
        seen.push({ name: ctx.exec.name, reason: ctx.reason });
        return { outcome: 'allowed-once' };
      },
      { name: 'always-yes' },
    );
    const decided: unknown[] = [];
    seams.on(Seam.decided, ({ seam, decidedBy }) => {
      if (seam === Seam.approval) decided.push(decidedBy);
    });
    const result = await tools.execute(call('yes'), { seams });
    expect(result).toMatchObject({ isError: false, value: 'yes' });
    expect(seen).toEqual([{ name: 'echo', reason: 'loud' }]);
    expect(decided).toEqual(['always-yes']);
  });

  it('next() falls through to the channel; its object answer carries the reason into the denial', async () => {
    const { tools, seams } = createFixture();
    seams.on(Seam.preExecute, () => ({ kind: 'ask' }));
    const passed: unknown[] = [];
    seams.on(Seam.approval, async (_ctx, next) => {
      const verdict = await next();
      passed.push(verdict);
      return verdict;
    });
    const request = vi.fn(async () => ({
      outcome: 'rejected' as const,
      reason: 'not on Fridays',
      remember: 'tool' as const,
    }));
    const result = await tools.execute(call(), { seams, approval: { request } });
    expect(request).toHaveBeenCalledTimes(1);
    expect(passed).toEqual([{ outcome: 'rejected', reason: 'not on Fridays', remember: 'tool' }]);
    expect(result.isError && result.error).toEqual({
      code: 'DENIED',
      message: 'Approval for tool "echo" was rejected: not on Fridays',
    });
  });

  it('a pass-through of the missing channel keeps the "no approval channel" denial', async () => {
    const { tools, seams } = createFixture();
    seams.on(Seam.preExecute, () => ({ kind: 'ask' }));
    seams.on(Seam.approval, (_ctx, next) => next());
    const result = await tools.execute(call(), { seams });
    expect(result.isError && result.error.message).toMatchInlineSnapshot(
      `"Tool "echo" needs approval, but there is no approval channel"`,
    );
  });

  it('a malformed decision is a PIPELINE_ERROR naming the seam and the listener; the channel is not asked', async () => {
    const { tools, seams } = createFixture();
    seams.on(Seam.preExecute, () => ({ kind: 'ask' }));
    seams.on(Seam.approval, () => ({ outcome: 'maybe' }) as never, { name: 'shrug' });
    const request = vi.fn(async () => 'allowed-once' as const);
    const result = await tools.execute(call(), { seams, approval: { request } });
    expect(request).not.toHaveBeenCalled();
    expect(result.isError && result.error.code).toBe('PIPELINE_ERROR');
    expect(result.isError && result.error.message).toContain('tools/approval');
    expect(result.isError && result.error.message).toContain('shrug');
  });
});
