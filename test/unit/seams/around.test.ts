import { describe, expect, test, vi } from 'vitest';
import type { ToolResult } from '../../../kernel/index.js';
import { createSeams, Seam, type ToolExecution } from '../../../seams/index.js';
import { makeExec } from './helpers.js';

const ok = (value: number): ToolResult => ({
  isError: false,
  value,
  content: [{ type: 'text', text: String(value) }],
});

describe('around (tools/execute)', () => {
  test('wrappers run as an onion around core and can transform its result', async () => {
    const seams = createSeams();
    const order: string[] = [];
    seams.on(Seam.execute, async (_exec, next) => {
      order.push('outer:before');
      const result = await next();
      order.push('outer:after');
      return result.isError ? result : { ...result, value: (result.value as number) * 10 };
    });
    seams.on(Seam.execute, async (_exec, next) => {
      order.push('inner');
      return next();
    });
    const core = vi.fn(async () => {
      order.push('core');
      return ok(4);
    });

    const result = await seams.snapshot().around(makeExec(), core, {});

    expect(order).toEqual(['outer:before', 'inner', 'core', 'outer:after']);
    expect(result).toMatchObject({ isError: false, value: 40 });
  });

  test('every next() dispatches again, so a retry wrapper re-runs the body', async () => {
    const seams = createSeams();
    let attempt = 0;
    const core = vi.fn(async (): Promise<ToolResult> => {
      attempt++;
      return attempt < 3
        ? { isError: true, error: { code: 'TOOL_FAILED', message: 'flaky' }, content: [] }
        : ok(attempt);
    });
    seams.on(Seam.execute, async (_exec, next) => {
      let result = await next();
      while (result.isError) result = await next();
      return result;
    });

    const result = await seams.snapshot().around(makeExec(), core, {});

    expect(core).toHaveBeenCalledTimes(3);
    expect(result).toMatchObject({ isError: false, value: 3 });
  });

  test('next({ signal }) replaces the signal for that dispatch only; the wrapper keeps its own exec', async () => {
    const seams = createSeams();
    const exec = makeExec();
    const override = new AbortController().signal;
    const coreSignals: AbortSignal[] = [];
    const innerSignals: AbortSignal[] = [];
    let wrapperExecAfter: ToolExecution | undefined;
    seams.on(Seam.execute, async (wrapperExec, next) => {
      await next({ signal: override });
      wrapperExecAfter = wrapperExec;
      return next();
    });
    seams.on(Seam.execute, (innerExec, next) => {
      innerSignals.push(innerExec.signal);
      expect(Object.isFrozen(innerExec)).toBe(true);
      return next();
    });

    await seams.snapshot().around(
      exec,
      async (coreExec) => {
        coreSignals.push(coreExec.signal);
        expect(coreExec.callId).toBe(exec.callId);
        expect(coreExec.token).toBe(exec.token);
        return ok(1);
      },
      {},
    );

    expect(innerSignals).toEqual([override, exec.signal]);
    expect(coreSignals).toEqual([override, exec.signal]);
    expect(wrapperExecAfter).toBe(exec);
    expect(exec.signal).not.toBe(override);
  });

  test('a short-circuiting wrapper skips core', async () => {
    const seams = createSeams();
    const core = vi.fn(async () => ok(1));
    seams.on(Seam.execute, () => ok(42), { name: 'cache' });

    await expect(seams.snapshot().around(makeExec(), core, {})).resolves.toMatchObject({ value: 42 });
    expect(core).not.toHaveBeenCalled();
  });

  test('an invalid wrapper result fails with INVALID_DECISION naming the wrapper', async () => {
    const seams = createSeams();
    seams.on(Seam.execute, () => ({ isError: false, content: 'done' }) as unknown as ToolResult, {
      name: 'metrics',
    });

    const dispatch = seams.snapshot().around(makeExec(), async () => ok(1), {});

    await expect(dispatch).rejects.toMatchObject({
      code: 'INVALID_DECISION',
      seam: 'tools/execute',
      listener: 'metrics',
    });
    await expect(dispatch).rejects.toThrowErrorMatchingInlineSnapshot(
      `[SeamListenerError: Listener "metrics" on seam "tools/execute" returned an invalid result: Invalid input: expected one of null|boolean|number|string|array|record at "value", received undefined]`,
    );
  });

  test('an invalid core result is blamed on the innermost wrapper that passed it on', async () => {
    const seams = createSeams();
    seams.on(Seam.execute, (_exec, next) => next(), { name: 'outer' });
    seams.on(Seam.execute, (_exec, next) => next(), { name: 'inner' });
    const broken = Object.freeze({ isError: false, content: [] }) as unknown as ToolResult;

    const dispatch = seams.snapshot().around(makeExec(), async () => broken, {});

    await expect(dispatch).rejects.toMatchObject({ code: 'INVALID_DECISION', listener: 'inner' });
  });

  test('a wrapper that edits the result below it in place is checked again and blamed', async () => {
    const seams = createSeams();
    seams.on(
      Seam.execute,
      async (_exec, next) => {
        const result = (await next()) as { value?: unknown };
        delete result.value;
        return result as ToolResult;
      },
      { name: 'editor' },
    );
    // Hands on a mutable result it checked itself: the editor above can still change it.
    seams.on(Seam.execute, () => ok(2), { name: 'author' });

    const dispatch = seams.snapshot().around(makeExec(), async () => ok(1), {});

    await expect(dispatch).rejects.toMatchObject({ code: 'INVALID_DECISION', listener: 'editor' });
  });

  test('frozen results passed on unchanged come back as the same object', async () => {
    const seams = createSeams();
    for (const name of ['a', 'b', 'c']) seams.on(Seam.execute, (_exec, next) => next(), { name });
    const result = Object.freeze({
      isError: false as const,
      value: 1,
      content: Object.freeze([Object.freeze({ type: 'text' as const, text: '1' })]),
    }) as ToolResult;

    await expect(seams.snapshot().around(makeExec(), async () => result, {})).resolves.toBe(result);
  });

  test('a throwing wrapper rejects with LISTENER_FAILED; a core failure passes through wrappers unchanged', async () => {
    const seams = createSeams();
    seams.on(Seam.execute, (_exec, next) => next(), { name: 'outer' });
    const inner = seams.on(
      Seam.execute,
      () => {
        throw new Error('wrapper bug');
      },
      { name: 'inner' },
    );

    await expect(seams.snapshot().around(makeExec(), async () => ok(1), {})).rejects.toMatchObject({
      code: 'LISTENER_FAILED',
      listener: 'inner',
    });

    inner();
    const coreFailure = new Error('core broke its contract');
    await expect(
      seams.snapshot().around(makeExec(), async () => Promise.reject(coreFailure), {}),
    ).rejects.toBe(coreFailure);
  });

  test('a non-signal passed to next() fails the wrapper with a clear message', async () => {
    const seams = createSeams();
    seams.on(Seam.execute, (_exec, next) => next({ signal: 'soon' as unknown as AbortSignal }), {
      name: 'timeout',
    });

    const dispatch = seams.snapshot().around(makeExec(), async () => ok(1), {});

    await expect(dispatch).rejects.toThrowErrorMatchingInlineSnapshot(
      `[SeamListenerError: Listener "timeout" on seam "tools/execute" failed: Expected the \`signal\` option of next() in "tools/execute" to be an AbortSignal, got \`"soon"\` (string)]`,
    );
  });
});
