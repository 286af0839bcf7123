import { describe, expect, test, vi } from 'vitest';
import { createSeams, Seam, type SeamPlugin, type Seams } from '../../../seams/index.js';
import { makeAgent, makeExec, makeLogger, makeTurnCtx } from './helpers.js';

const noop = (): void => {};

describe('registration', () => {
  test('listeners(name) lists names in dispatch order, outermost first; the last prepend is outermost', () => {
    const seams = createSeams();
    seams.on(Seam.preExecute, (_e, next) => next(), { name: 'A' });
    seams.on(Seam.preExecute, (_e, next) => next(), { name: 'B' });
    seams.on(Seam.preExecute, (_e, next) => next(), { name: 'P1', prepend: true });
    seams.on(Seam.preExecute, (_e, next) => next(), { name: 'P2', prepend: true });
    seams.on(Seam.preExecute, (_e, next) => next(), { name: 'C' });

    expect(seams.listeners(Seam.preExecute)).toEqual(['P2', 'P1', 'A', 'B', 'C']);
    expect(seams.listeners(Seam.postExecute)).toEqual([]);
  });

  test('names come from the name option, else <plugin>.<function>, else <seam>#<n>', () => {
    const seams = createSeams();
    seams.on(Seam.result, noop);
    seams.on(Seam.result, noop, { name: 'audit' });
    seams.guard(() => undefined);
    seams.use({
      name: 'policy',
      apply(view) {
        view.on(Seam.result, function record() {});
        view.on(Seam.result, () => {});
        view.guard(function blockRm() {
          return undefined;
        });
      },
    });

    expect(seams.listeners(Seam.result)).toEqual([
      'tools/result#1',
      'audit',
      'policy.record',
      'policy.tools/result#4',
    ]);
    expect(seams.listeners('guard')).toEqual(['guard#1', 'policy.blockRm']);
  });

  test('a disposer is idempotent: disposing twice removes only its own listener', () => {
    const seams = createSeams();
    const first = seams.on(Seam.result, noop, { name: 'first' });
    seams.on(Seam.result, noop, { name: 'second' });

    first();
    first();
    first[Symbol.dispose]();

    expect(seams.listeners(Seam.result)).toEqual(['second']);
  });

  test('a disposer works with `using`: the listener is gone at the end of the block', () => {
    const seams = createSeams();
    {
      using _listener = seams.on(Seam.result, noop, { name: 'scoped' });
      expect(seams.listeners(Seam.result)).toEqual(['scoped']);
    }
    expect(seams.listeners(Seam.result)).toEqual([]);
  });

  test('S06 disposing a plugin with four seams and a guard removes them all and dispatch takes the default', async () => {
    const seams = createSeams();
    const cleanup = vi.fn();
    const plugin: SeamPlugin = {
      name: 'strict',
      apply(view) {
        view.on(Seam.preExecute, () => ({ kind: 'deny', reason: 'strict' }));
        view.on(Seam.postExecute, () => ({ kind: 'block', feedback: [] }));
        view.on(Seam.execute, () => ({ isError: false, value: 1, content: [] }));
        view.on(Seam.result, noop);
        view.guard(() => 'strict guard');
        return cleanup;
      },
    };
    const dispose = seams.use(plugin);
    expect(seams.listeners(Seam.preExecute)).toHaveLength(1);

    dispose();
    dispose();

    for (const name of [Seam.preExecute, Seam.postExecute, Seam.execute, Seam.result, 'guard'] as const) {
      expect(seams.listeners(name)).toEqual([]);
    }
    const set = seams.snapshot();
    const outcome = await set.waterfall(Seam.preExecute, makeExec(), { kind: 'allow' }, {});
    expect(outcome).toEqual({ decision: { kind: 'allow' }, decidedBy: 'default' });
    expect(set.guards(makeExec())).toBeUndefined();
    expect(cleanup).toHaveBeenCalledTimes(1);
  });

  test('disposing a plugin also removes the plugins it used, and a late registration is refused', () => {
    const seams = createSeams();
    let kept: Seams | undefined;
    const dispose = seams.use({
      name: 'outer',
      apply(view) {
        kept = view;
        view.use({ name: 'inner', apply: (inner) => void inner.on(Seam.result, function log() {}) });
      },
    });
    expect(seams.listeners(Seam.result)).toEqual(['inner.log']);

    dispose();

    expect(seams.listeners(Seam.result)).toEqual([]);
    expect(() => kept?.on(Seam.result, noop)).toThrowErrorMatchingInlineSnapshot(
      `[Error: Plugin "outer" was disposed; register listeners through a new seams.use() instead]`,
    );
    expect(seams.listeners(Seam.result)).toEqual([]);
  });

  test('a plugin cleanup that throws is reported, and its listeners are still removed', () => {
    const logger = makeLogger();
    const seams = createSeams({ logger });
    const dispose = seams.use({
      name: 'leaky',
      apply(view) {
        view.on(Seam.result, noop);
        return () => {
          throw new Error('socket already closed');
        };
      },
    });

    expect(() => dispose()).not.toThrow();

    expect(seams.listeners(Seam.result)).toEqual([]);
    expect(logger.error.mock.calls[0]?.[0]).toMatchInlineSnapshot(
      `"Plugin "leaky" cleanup failed: socket already closed"`,
    );
  });

  test('a plugin whose apply throws leaves nothing registered', () => {
    const seams = createSeams();
    const apply = (view: Seams): void => {
      view.on(Seam.result, noop);
      throw new Error('half applied');
    };

    expect(() => seams.use({ name: 'broken', apply })).toThrow('half applied');
    expect(seams.listeners(Seam.result)).toEqual([]);
  });

  test('S07 a listener registered for agent a is dispatched only in a snapshot for agent a', async () => {
    const seams = createSeams();
    const seen: string[] = [];
    seams.on(
      Seam.turnContinuation,
      (ctx, next) => {
        seen.push(ctx.agent.id);
        return next();
      },
      { agent: 'a' },
    );
    const dispatchFor = (id: string) =>
      seams
        .snapshot(id)
        .waterfall(
          Seam.turnContinuation,
          { ...makeTurnCtx(id), agent: makeAgent(id), step: 1, defaultDecision: { action: 'stop' } },
          { action: 'stop' },
          { agentId: id },
        );

    await dispatchFor('a');
    await dispatchFor('b');
    await seams
      .snapshot()
      .waterfall(
        Seam.turnContinuation,
        { ...makeTurnCtx('a'), step: 1, defaultDecision: { action: 'stop' } },
        { action: 'stop' },
        {},
      );

    expect(seen).toEqual(['a']);
    expect(seams.snapshot('a').has(Seam.turnContinuation)).toBe(true);
    expect(seams.snapshot('b').has(Seam.turnContinuation)).toBe(false);
  });

  test('a snapshot ignores later registrations and is reused until the registry changes', () => {
    const seams = createSeams();
    const before = seams.snapshot('a');
    expect(seams.snapshot('a')).toBe(before);

    seams.guard(() => 'late', { name: 'late' });

    expect(before.has('guard')).toBe(false);
    const after = seams.snapshot('a');
    expect(after).not.toBe(before);
    expect(after.guards(makeExec())).toEqual({ denied: 'late', by: 'late' });
  });

  test('without agent-scoped listeners every agent shares one snapshot; one scoped listener splits them', () => {
    const seams = createSeams();
    seams.on(Seam.status, noop);
    // Ten thousand agents on one registry hold one snapshot, not one each.
    expect(seams.snapshot('a')).toBe(seams.snapshot('b'));
    const scoped = seams.on(Seam.turnContinuation, (_ctx, next) => next(), { agent: 'a' });
    expect(seams.snapshot('a')).not.toBe(seams.snapshot('b'));
    expect([
      seams.snapshot('a').has(Seam.turnContinuation),
      seams.snapshot('b').has(Seam.turnContinuation),
    ]).toEqual([true, false]);
    scoped();
    expect(seams.snapshot('a')).toBe(seams.snapshot('b'));
    expect(seams.snapshot('a').has(Seam.turnContinuation)).toBe(false);
  });

  test('setApproval installs and clears the approval channel', async () => {
    const seams = createSeams();
    const channel = { request: async () => 'allowed-once' as const };

    seams.setApproval(channel);
    expect(seams.approval).toBe(channel);
    seams.setApproval();
    expect(seams.approval).toBeUndefined();
  });

  test('bad registration arguments throw a TypeError naming the argument, what was expected and what was received', () => {
    const seams = createSeams();
    const on = seams.on as (name: unknown, listener: unknown, options?: unknown) => unknown;

    expect(() => on('tools/preexecute', noop)).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the \`name\` argument of seams.on() to be a seam name such as "tools/pre-execute", got \`"tools/preexecute"\` (string); did you mean "tools/pre-execute"?]`,
    );
    expect(() => on('nothing-like-a-seam', noop)).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the \`name\` argument of seams.on() to be a seam name such as "tools/pre-execute", got \`"nothing-like-a-seam"\` (string) (see \`Seam\` for the list)]`,
    );
    expect(() => on(Seam.result, 42)).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the \`listener\` argument of seams.on() to be a function, got \`42\` (number)]`,
    );
    expect(() => on(Seam.result, noop, { prepend: 'yes' })).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the \`prepend\` option of seams.on() to be a boolean, got \`"yes"\` (string)]`,
    );
    expect(() => seams.use({ name: '', apply: noop })).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the plugin's \`name\` to be a non-empty string, got \`""\` (string)]`,
    );
    expect(() =>
      seams.use({ name: 'async', apply: async () => {} } as never),
    ).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected plugin "async" apply() to return a cleanup function or nothing, got a Promise; apply() must be synchronous, register listeners before returning]`,
    );
    expect(() => seams.notify('tools/pre-execute' as never, {} as never)).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the \`name\` argument of seams.notify() to be a notify seam, got "tools/pre-execute" (a waterfall seam); dispatch it through seams.snapshot() instead]`,
    );
    expect(() => on(Seam.result, 42)).toThrow(TypeError);
  });
});
