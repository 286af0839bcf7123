import { describe, expect, test, vi } from 'vitest';
import type { PreToolDecision, ToolResult } from '../../../kernel/index.js';
import { createSeams, SeamAbortError, SeamListenerError, type SeamMap } from '../../../seams/index.js';
import { makeExec, makeLogger, makeTurnCtx } from './helpers.js';

const allow: PreToolDecision = { kind: 'allow' };
const scope = { agentId: 'a' };

describe('waterfall', () => {
  test('S01 entry order is C, A, B when C is prepended; each receives the result below it; the innermost author decides', async () => {
    const seams = createSeams();
    const entered: string[] = [];
    const received: Record<string, unknown> = {};
    const denial: PreToolDecision = { kind: 'deny', reason: 'B says no' };
    seams.on(
      'tools/pre-execute',
      async (_exec, next) => {
        entered.push('A');
        received.A = await next();
        return received.A as PreToolDecision;
      },
      { name: 'A' },
    );
    seams.on(
      'tools/pre-execute',
      async (_exec, next) => {
        entered.push('B');
        received.B = await next();
        return denial;
      },
      { name: 'B' },
    );
    seams.on(
      'tools/pre-execute',
      async (_exec, next) => {
        entered.push('C');
        received.C = await next();
        return received.C as PreToolDecision;
      },
      { name: 'C', prepend: true },
    );

    const outcome = await seams.snapshot().waterfall('tools/pre-execute', makeExec(), allow, {});

    expect(entered).toEqual(['C', 'A', 'B']);
    expect(received.B).toBe(allow);
    expect(received.A).toBe(denial);
    expect(received.C).toBe(denial);
    expect(outcome).toEqual({ decision: denial, decidedBy: 'B' });
  });

  test('S01 a chain of pass-throughs is decided by the default', async () => {
    const seams = createSeams();
    seams.on('tools/pre-execute', (_exec, next) => next(), { name: 'outer' });
    seams.on('tools/pre-execute', (_exec, next) => next(), { name: 'inner' });

    const outcome = await seams.snapshot().waterfall('tools/pre-execute', makeExec(), allow, {});

    expect(outcome.decision).toBe(allow);
    expect(outcome.decidedBy).toBe('default');
  });

  test('S02 a listener that returns without next() stops the chain and is named as the decider', async () => {
    const seams = createSeams();
    const inner = vi.fn((_exec: unknown, next: () => Promise<PreToolDecision>) => next());
    seams.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'stop here' }), { name: 'policy.check' });
    seams.on('tools/pre-execute', inner);

    const outcome = await seams.snapshot().waterfall('tools/pre-execute', makeExec(), allow, {});

    expect(inner).not.toHaveBeenCalled();
    expect(outcome).toEqual({ decision: { kind: 'deny', reason: 'stop here' }, decidedBy: 'policy.check' });
  });

  test('S03 next() called twice runs downstream once and yields the same decision', async () => {
    const seams = createSeams();
    const inner = vi.fn((): PreToolDecision => ({ kind: 'ask', reason: 'sure?' }));
    let same = false;
    seams.on('tools/pre-execute', async (_exec, next) => {
      const first = next();
      const second = next();
      same = (await first) === (await second);
      return second;
    });
    seams.on('tools/pre-execute', inner, { name: 'asker' });

    const outcome = await seams.snapshot().waterfall('tools/pre-execute', makeExec(), allow, {});

    expect(inner).toHaveBeenCalledTimes(1);
    expect(same).toBe(true);
    expect(outcome.decidedBy).toBe('asker');
  });

  test('S04 an invalid decision fails with a message naming the seam and the listener', async () => {
    const seams = createSeams();
    seams.on('tools/pre-execute', () => ({ kind: 'maybe' }) as unknown as PreToolDecision, {
      name: 'policy.check',
    });

    const dispatch = seams.snapshot().waterfall('tools/pre-execute', makeExec(), allow, {});

    await expect(dispatch).rejects.toMatchObject({
      code: 'INVALID_DECISION',
      seam: 'tools/pre-execute',
      listener: 'policy.check',
    });
    await expect(dispatch).rejects.toThrowErrorMatchingInlineSnapshot(
      `[SeamListenerError: Listener "policy.check" on seam "tools/pre-execute" returned an invalid decision: Invalid input: expected one of "allow"|"deny"|"ask" at "kind", received "maybe"]`,
    );
  });

  test('S04 a listener that forgets to return next() is told so', async () => {
    const seams = createSeams();
    seams.on(
      'agent/prompt-submit',
      // The type already forbids this; the runtime check is for plain JavaScript callers.
      (async (_ctx: unknown, next: () => Promise<unknown>) => {
        await next();
      }) as never,
      { name: 'audit' },
    );
    const ctx = { ...makeTurnCtx(), content: [], source: { kind: 'user' } } as const;

    const dispatch = seams.snapshot().waterfall('agent/prompt-submit', ctx, { kind: 'allow' }, {});

    await expect(dispatch).rejects.toThrowErrorMatchingInlineSnapshot(
      `[SeamListenerError: Listener "audit" on seam "agent/prompt-submit" returned an invalid decision: Invalid input: expected object, received undefined (did the listener forget to \`return next()\`?)]`,
    );
  });

  test('S04 an accept carrying both content and value is rejected at runtime', async () => {
    const seams = createSeams();
    const both = { kind: 'accept', content: [], value: 1 };
    seams.on('tools/post-execute', () => both as never, { name: 'rewrite' });
    const result: ToolResult = { isError: false, value: 0, content: [] };

    const dispatch = seams
      .snapshot()
      .waterfall('tools/post-execute', { exec: makeExec(), result }, { kind: 'accept' }, {});

    await expect(dispatch).rejects.toThrowErrorMatchingInlineSnapshot(
      `[SeamListenerError: Listener "rewrite" on seam "tools/post-execute" returned an invalid decision: accept may replace content or value, not both]`,
    );
  });

  test('a throwing listener is blamed by name even when outer listeners let the error pass', async () => {
    const seams = createSeams();
    const boom = new Error('boom');
    seams.on('tools/pre-execute', (_exec, next) => next(), { name: 'outer' });
    seams.on(
      'tools/pre-execute',
      () => {
        throw boom;
      },
      { name: 'inner' },
    );

    const error = await seams
      .snapshot()
      .waterfall('tools/pre-execute', makeExec(), allow, {})
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SeamListenerError);
    expect(error).toMatchObject({ code: 'LISTENER_FAILED', listener: 'inner', cause: boom });
    expect((error as Error).message).toMatchInlineSnapshot(
      `"Listener "inner" on seam "tools/pre-execute" failed: boom"`,
    );
  });

  test('listeners receive a frozen ctx, and a listener that mutates it fails without touching the caller', async () => {
    const seams = createSeams();
    seams.on('agent/request-error', (ctx) => {
      (ctx as { priorFailures: number }).priorFailures = 99;
      return { action: 'retry' };
    });
    const ctx = { ...makeTurnCtx(), step: 0, error: { message: 'overloaded' }, priorFailures: 1 };

    const dispatch = seams.snapshot().waterfall('agent/request-error', ctx, { action: 'fail' }, {});

    await expect(dispatch).rejects.toMatchObject({ code: 'LISTENER_FAILED' });
    expect(ctx.priorFailures).toBe(1);
    expect(Object.isFrozen(ctx)).toBe(false);
  });

  test('an outer listener cannot edit a downstream decision in place and leave its author credited', async () => {
    const seams = createSeams();
    seams.on('agent/turn-continuation', async (_ctx, next) => {
      const decision = (await next()) as { action: string };
      decision.action = 'stop';
      return decision as SeamMap['agent/turn-continuation']['result'];
    });
    seams.on('agent/turn-continuation', () => ({ action: 'continue' }), { name: 'keep-going' });
    const ctx = { ...makeTurnCtx(), step: 1, defaultDecision: { action: 'stop' } as const };

    const dispatch = seams.snapshot().waterfall('agent/turn-continuation', ctx, { action: 'stop' }, {});

    await expect(dispatch).rejects.toMatchObject({ code: 'LISTENER_FAILED' });
  });

  test('a decision is frozen all the way down, a cycle in it included', async () => {
    const seams = createSeams();
    const note: Record<string, unknown> = { level: { depth: 2 } };
    note.self = note;
    seams.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'no', note }) as PreToolDecision);

    const { decision } = await seams.snapshot().waterfall('tools/pre-execute', makeExec(), allow, {});

    const frozen = (decision as unknown as { note: typeof note }).note;
    expect(frozen).toBe(note);
    expect([Object.isFrozen(decision), Object.isFrozen(note), Object.isFrozen(note.level)]).toEqual([
      true,
      true,
      true,
    ]);
  });

  test('an abort between listeners rejects with ABORTED and the next listener never runs', async () => {
    const seams = createSeams();
    const controller = new AbortController();
    const inner = vi.fn((_exec: unknown, next: () => Promise<PreToolDecision>) => next());
    seams.on('tools/pre-execute', (_exec, next) => {
      controller.abort(new Error('user pressed Ctrl-C'));
      return next();
    });
    seams.on('tools/pre-execute', inner, { name: 'inner' });

    const dispatch = seams
      .snapshot()
      .waterfall('tools/pre-execute', makeExec(), allow, { signal: controller.signal });

    await expect(dispatch).rejects.toBeInstanceOf(SeamAbortError);
    await expect(dispatch).rejects.toMatchObject({ code: 'ABORTED', seam: 'tools/pre-execute' });
    await expect(dispatch).rejects.toThrowErrorMatchingInlineSnapshot(
      `[AbortError: Seam "tools/pre-execute" was aborted before listener "inner" ran]`,
    );
    expect(inner).not.toHaveBeenCalled();
  });

  test('the ctx signal is checked when the scope has none', async () => {
    const seams = createSeams();
    const listener = vi.fn(() => ({ action: 'stop' }) as const);
    seams.on('agent/turn-continuation', listener);
    const ctx = {
      ...makeTurnCtx(),
      signal: AbortSignal.abort(),
      step: 1,
      defaultDecision: { action: 'stop' } as const,
    };

    const dispatch = seams.snapshot().waterfall('agent/turn-continuation', ctx, { action: 'stop' }, {});

    await expect(dispatch).rejects.toMatchObject({ code: 'ABORTED' });
    expect(listener).not.toHaveBeenCalled();
  });

  test('T16 seam/decided follows every waterfall with the decider, or default when none decided', async () => {
    const seams = createSeams({ logger: makeLogger() });
    const decided: unknown[] = [];
    seams.on('seam/decided', (event) => {
      decided.push(event);
    });
    seams.on(
      'tools/pre-execute',
      (exec, next) => (exec.name === 'rm' ? { kind: 'deny', reason: 'no rm' } : next()),
      {
        name: 'no-rm',
      },
    );
    const set = seams.snapshot('a');

    await set.waterfall('tools/pre-execute', makeExec(), allow, { ...scope, turn: 3, callId: 'call-1' });
    await set.waterfall('tools/pre-execute', makeExec({ name: 'rm', callId: 'call-2' }), allow, {
      ...scope,
      turn: 3,
      callId: 'call-2',
    });

    expect(decided).toEqual([
      {
        agentId: 'a',
        seam: 'tools/pre-execute',
        decidedBy: 'default',
        decision: allow,
        turn: 3,
        callId: 'call-1',
      },
      {
        agentId: 'a',
        seam: 'tools/pre-execute',
        decidedBy: 'no-rm',
        decision: { kind: 'deny', reason: 'no rm' },
        turn: 3,
        callId: 'call-2',
      },
    ]);
  });

  test('T16 no seam/decided is emitted for a waterfall that failed', async () => {
    const seams = createSeams({ logger: makeLogger() });
    const decided = vi.fn();
    seams.on('seam/decided', decided);
    seams.on('agent/request-error', () => {
      throw new Error('broken');
    });
    const ctx = { ...makeTurnCtx(), step: 0, error: { message: 'x' }, priorFailures: 0 };

    await expect(
      seams.snapshot().waterfall('agent/request-error', ctx, { action: 'fail' }, {}),
    ).rejects.toThrow();
    expect(decided).not.toHaveBeenCalled();
  });
});
