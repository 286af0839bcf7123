import { describe, expect, expectTypeOf, test } from 'vitest';
import type { JsonObject, PrepareDecision } from '../../../kernel/index.js';
import {
  type AcceptRewrite,
  createSeams,
  type Listener,
  type PrepareContext,
  Seam,
  SeamAbortError,
  type SeamMap,
} from '../../../seams/index.js';

const signal = new AbortController().signal;
const base = { callId: 'c1', name: 'grep', original: Object.freeze({ pattern: 'x' }), signal };
// Accepts any JSON object as is (frozen): the tool layer's schema check is tested with the tools.
const acceptAll: AcceptRewrite = (raw) => ({ ok: true, value: Object.freeze({ ...raw }) });

describe('fold (tools/prepare)', () => {
  test('runs listeners in dispatch order (prepend first), each seeing the input so far and every earlier step', async () => {
    const seams = createSeams();
    const seen: { name: string; args: JsonObject; steps: string[] }[] = [];
    const record = (name: string, ctx: PrepareContext) =>
      seen.push({ name, args: ctx.arguments, steps: ctx.steps.map((s) => s.by) });
    seams.on(
      'tools/prepare',
      (ctx) => {
        record('A', ctx);
        return { kind: 'rewrite', arguments: { ...ctx.arguments, a: true }, reason: 'A adds a' };
      },
      { name: 'A' },
    );
    seams.on(
      'tools/prepare',
      (ctx) => {
        record('B', ctx);
        return { kind: 'rewrite', arguments: { ...ctx.arguments, b: true } };
      },
      { name: 'B' },
    );
    seams.on(
      'tools/prepare',
      (ctx) => {
        record('P', ctx);
      },
      { name: 'P', prepend: true },
    );
    const outcome = await seams.snapshot().fold(base, acceptAll, {});
    expect(seen).toEqual([
      { name: 'P', args: { pattern: 'x' }, steps: [] },
      { name: 'A', args: { pattern: 'x' }, steps: [] },
      { name: 'B', args: { pattern: 'x', a: true }, steps: ['A'] },
    ]);
    expect(outcome).toEqual({
      ok: true,
      arguments: { pattern: 'x', a: true, b: true },
      steps: [
        { by: 'A', reason: 'A adds a', arguments: { pattern: 'x', a: true } },
        { by: 'B', arguments: { pattern: 'x', a: true, b: true } },
      ],
      decidedBy: 'B',
    });
    expect(Object.isFrozen(outcome.steps[0])).toBe(true);
  });

  test('the final input depends on order, not on which listener finishes first', async () => {
    const run = async (delays: [number, number]) => {
      const seams = createSeams();
      seams.on('tools/prepare', async (ctx) => {
        await new Promise((resolve) => setTimeout(resolve, delays[0]));
        return { kind: 'rewrite', arguments: { ...ctx.arguments, by: 'first' } };
      });
      seams.on('tools/prepare', async (ctx) => {
        await new Promise((resolve) => setTimeout(resolve, delays[1]));
        return {
          kind: 'rewrite',
          arguments: { ...ctx.arguments, by: `second after ${String(ctx.arguments.by)}` },
        };
      });
      return seams.snapshot().fold(base, acceptAll, {});
    };
    const [slowFirst, slowSecond] = await Promise.all([run([20, 0]), run([0, 20])]);
    expect(slowFirst.arguments).toEqual({ pattern: 'x', by: 'second after first' });
    expect(slowSecond).toEqual(slowFirst);
  });

  test('keep and undefined leave the input; seam/decided carries the decision and the steps', async () => {
    const seams = createSeams();
    const decided: SeamMap['seam/decided']['ctx'][] = [];
    seams.on('seam/decided', (payload) => void decided.push(payload));
    seams.on('tools/prepare', () => ({ kind: 'keep' }), { name: 'keeper' });
    seams.on('tools/prepare', () => undefined, { name: 'quiet' });
    const kept = await seams.snapshot('a').fold(base, acceptAll, { agentId: 'a', turn: 2, callId: 'c1' });
    expect(kept).toEqual({ ok: true, arguments: { pattern: 'x' }, steps: [], decidedBy: 'default' });
    seams.on('tools/prepare', () => ({ kind: 'rewrite', arguments: { pattern: 'y' } }), { name: 'rw' });
    await seams.snapshot('a').fold(base, acceptAll, { agentId: 'a', turn: 2, callId: 'c1' });
    expect(decided).toEqual([
      {
        agentId: 'a',
        seam: 'tools/prepare',
        decidedBy: 'default',
        decision: { kind: 'keep' },
        steps: [],
        turn: 2,
        callId: 'c1',
      },
      {
        agentId: 'a',
        seam: 'tools/prepare',
        decidedBy: 'rw',
        decision: { kind: 'rewrite', arguments: { pattern: 'y' } },
        steps: [{ by: 'rw', arguments: { pattern: 'y' } }],
        turn: 2,
        callId: 'c1',
      },
    ]);
  });

  test('a refused rewrite, a throw and an invalid decision are returned naming the listener, with the steps before it', async () => {
    const refuseB: AcceptRewrite = (raw) =>
      raw.bad === true ? { ok: false, message: 'arguments that do not fit' } : acceptAll(raw);
    const outcomeWith = async (second: Listener<'tools/prepare'>) => {
      const seams = createSeams();
      seams.on('tools/prepare', () => ({ kind: 'rewrite', arguments: { pattern: 'first' } }), {
        name: 'one',
      });
      seams.on('tools/prepare', second, { name: 'two' });
      seams.on('tools/prepare', () => ({ kind: 'rewrite', arguments: { pattern: 'never' } }), {
        name: 'three',
      });
      const outcome = await seams.snapshot().fold(base, refuseB, {});
      if (outcome.ok) throw new Error('expected a failure');
      return {
        code: outcome.error.code,
        message: outcome.error.message,
        arguments: outcome.arguments,
        by: outcome.steps.map((s) => s.by),
      };
    };
    expect(await outcomeWith(() => ({ kind: 'rewrite', arguments: { bad: true } }))).toEqual({
      code: 'INVALID_REWRITE',
      message: 'Listener "two" on seam "tools/prepare" returned arguments that do not fit',
      arguments: { pattern: 'first' },
      by: ['one'],
    });
    expect(
      await outcomeWith(() => {
        throw new Error('boom');
      }),
    ).toMatchObject({
      code: 'LISTENER_FAILED',
      message: 'Listener "two" on seam "tools/prepare" failed: boom',
    });
    const garbage = (() => ({ kind: 'rewrite' })) as unknown as Listener<'tools/prepare'>;
    expect(await outcomeWith(garbage)).toMatchObject({ code: 'INVALID_DECISION', by: ['one'] });
  });

  test('an abort between listeners rejects before the next one runs', async () => {
    const seams = createSeams();
    const controller = new AbortController();
    let secondRan = false;
    seams.on('tools/prepare', () => {
      controller.abort();
    });
    seams.on('tools/prepare', () => {
      secondRan = true;
    });
    await expect(
      seams.snapshot().fold(base, acceptAll, { signal: controller.signal }),
    ).rejects.toBeInstanceOf(SeamAbortError);
    expect(secondRan).toBe(false);
  });

  test('listener typing: a fold listener gets PrepareContext and no next(), and may return undefined', () => {
    expectTypeOf<Parameters<Listener<'tools/prepare'>>>().toEqualTypeOf<[ctx: PrepareContext]>();
    const seams = createSeams();
    seams.on(Seam.prepare, (): PrepareDecision => ({ kind: 'keep' }));
    seams.on(Seam.prepare, () => undefined);
    // @ts-expect-error a pre-execute decision is not a prepare decision
    seams.on(Seam.prepare, () => ({ kind: 'allow' }));
    expect(seams.listeners('tools/prepare')).toEqual([
      'tools/prepare#1',
      'tools/prepare#2',
      'tools/prepare#3',
    ]);
  });
});
