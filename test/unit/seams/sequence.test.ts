import { describe, expect, test, vi } from 'vitest';
import type { ContinuationStop } from '../../../kernel/index.js';
import { createSeams, Seam, SeamListenerError } from '../../../seams/index.js';
import { makeExec, makeTurnCtx } from './helpers.js';

const stepCtx = () => ({ ...makeTurnCtx('a'), step: 2 });

describe('serial, firstResult and guards', () => {
  test('serial awaits each listener in order', async () => {
    const seams = createSeams();
    const order: string[] = [];
    seams.on(Seam.preStep, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push('slow');
    });
    seams.on(Seam.preStep, () => void order.push('fast'));

    await seams.snapshot('a').serial(Seam.preStep, stepCtx(), {});

    expect(order).toEqual(['slow', 'fast']);
  });

  test('serial rejects on the first throw, naming the listener, and later listeners do not run', async () => {
    const seams = createSeams();
    const later = vi.fn();
    seams.on(
      Seam.postStep,
      () => {
        throw new Error('disk full');
      },
      { name: 'saver' },
    );
    seams.on(Seam.postStep, later);

    const dispatch = seams.snapshot('a').serial(Seam.postStep, stepCtx(), {});

    await expect(dispatch).rejects.toBeInstanceOf(SeamListenerError);
    await expect(dispatch).rejects.toThrowErrorMatchingInlineSnapshot(
      `[SeamListenerError: Listener "saver" on seam "agent/post-step" failed: disk full]`,
    );
    expect(later).not.toHaveBeenCalled();
  });

  test('serial still runs with an aborted signal (post-step runs once after a cancelled batch)', async () => {
    const seams = createSeams();
    const listener = vi.fn();
    seams.on(Seam.postStep, listener);

    await seams.snapshot('a').serial(Seam.postStep, { ...stepCtx(), signal: AbortSignal.abort() }, {});

    expect(listener).toHaveBeenCalledTimes(1);
  });

  test('firstResult: the first non-undefined stop wins and stops the chain', async () => {
    const seams = createSeams();
    const last = vi.fn();
    seams.on(Seam.turnStop, () => undefined, { name: 'abstains' });
    seams.on(Seam.turnStop, async (): Promise<ContinuationStop> => ({ action: 'stop', reason: 'budget' }), {
      name: 'budget',
    });
    seams.on(Seam.turnStop, last);

    const outcome = await seams.snapshot('a').firstResult(Seam.turnStop, makeTurnCtx(), {});

    expect(outcome).toEqual({ decision: { action: 'stop', reason: 'budget' }, decidedBy: 'budget' });
    expect(last).not.toHaveBeenCalled();
  });

  test('firstResult takes the default when every listener abstains, and rejects an invalid stop', async () => {
    const seams = createSeams();
    const abstain = seams.on(Seam.turnStop, () => undefined);
    await expect(seams.snapshot('a').firstResult(Seam.turnStop, makeTurnCtx(), {})).resolves.toEqual({
      decision: undefined,
      decidedBy: 'default',
    });

    abstain();
    seams.on(Seam.turnStop, () => ({ action: 'continue' }) as unknown as ContinuationStop, {
      name: 'confused',
    });
    const dispatch = seams.snapshot('a').firstResult(Seam.turnStop, makeTurnCtx(), {});
    await expect(dispatch).rejects.toThrowErrorMatchingInlineSnapshot(
      `[SeamListenerError: Listener "confused" on seam "agent/turn-stop" returned an invalid decision: Invalid input: expected "stop" at "action", received "continue"]`,
    );
  });

  test('guards run in order and the first denial wins', () => {
    const seams = createSeams();
    const afterDenial = vi.fn(() => 'never asked');
    seams.guard(() => undefined, { name: 'abstains' });
    seams.guard((exec) => (exec.name === 'rm' ? 'rm is not allowed' : undefined), { name: 'no-rm' });
    seams.guard(afterDenial);
    const set = seams.snapshot();

    expect(set.guards(makeExec({ name: 'rm' }))).toEqual({ denied: 'rm is not allowed', by: 'no-rm' });
    expect(afterDenial).not.toHaveBeenCalled();
    expect(set.guards(makeExec({ name: 'ls' }))).toEqual({ denied: 'never asked', by: 'guard#3' });
  });

  test('a throwing guard throws GUARD_FAILED; an async guard is refused with a hint', () => {
    const seams = createSeams();
    const throwing = seams.guard(
      () => {
        throw new Error('policy file missing');
      },
      { name: 'policy' },
    );
    expect(() => seams.snapshot().guards(makeExec())).toThrowErrorMatchingInlineSnapshot(
      `[SeamListenerError: Guard "policy" failed: policy file missing]`,
    );

    throwing();
    seams.guard((async () => 'too late') as never, { name: 'async-policy' });
    expect(() => seams.snapshot().guards(makeExec())).toThrowErrorMatchingInlineSnapshot(
      `[SeamListenerError: Guard "async-policy" returned a Promise, expected a denial reason (string) or undefined; guards are synchronous, compute the verdict before the call]`,
    );
  });

  test('has() tells which seams have listeners in the snapshot', () => {
    const seams = createSeams();
    seams.on(Seam.preStep, () => {});
    const set = seams.snapshot();

    expect(set.has(Seam.preStep)).toBe(true);
    expect(set.has(Seam.postStep)).toBe(false);
    expect(set.has('guard')).toBe(false);
  });
});
