// tools.md § Phase order of one call: one test per row of the table, on a standalone tools.execute.

import { createToolRegistry, type HookContext } from 'seamchart';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  also,
  ctx,
  errorOf,
  expectFrozenDeep,
  run,
  texts,
  throwingFinalizer,
  tracedSeams,
} from './pipeline.js';

describe('tools.md § Phase order of one call', () => {
  it('row: arguments not plain JSON → finalize + result only, INVALID_ARGS', async () => {
    const t = tracedSeams({});
    const args = { n: 1, f: () => 1 };
    const result = await run(t, args);
    expect(t.phases).toEqual(['finalize', 'result']);
    expect(errorOf(result).code).toBe('INVALID_ARGS');
    expect(result.content).toEqual([{ type: 'text', text: `Error: ${errorOf(result).message}` }]);
    expect(Object.isFrozen(args)).toBe(false);
    expectFrozenDeep(result);
  });

  it('row: call signal already aborted at start → finalize + result only, ABORTED_BEFORE_DISPATCH', async () => {
    const t = tracedSeams({});
    const result = await run(t, {}, {}, { signal: AbortSignal.abort() });
    expect(t.phases).toEqual(['finalize', 'result']);
    expect(errorOf(result).code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(result.content).toEqual([{ type: 'text', text: `Error: ${errorOf(result).message}` }]);
  });

  it('row: aborted while in pre-execute → no body, no post, ABORTED_BEFORE_DISPATCH', async () => {
    const controller = new AbortController();
    const t = tracedSeams({
      pre: () => {
        controller.abort();
        return new Promise(() => {});
      },
    });
    const result = await run(t, {}, {}, { signal: controller.signal });
    expect(t.phases).toEqual(['pre', 'finalize', 'result']);
    expect(errorOf(result).code).toBe('ABORTED_BEFORE_DISPATCH');
  });

  it('row: aborted during approval (channel answers cancelled) → ABORTED_BEFORE_DISPATCH, no guard/body/post', async () => {
    const controller = new AbortController();
    const t = tracedSeams({ pre: () => ({ kind: 'ask' }) });
    const approval = {
      request: async () => {
        t.phases.push('approval');
        controller.abort();
        return 'cancelled' as const;
      },
    };
    const result = await run(t, {}, {}, { signal: controller.signal, approval });
    expect(t.phases).toEqual(['pre', 'approval', 'finalize', 'result']);
    expect(errorOf(result).code).toBe('ABORTED_BEFORE_DISPATCH');
  });

  it('row: aborted while the approval channel hangs → ABORTED_BEFORE_DISPATCH', async () => {
    const controller = new AbortController();
    const t = tracedSeams({ pre: () => ({ kind: 'ask' }) });
    const approval = {
      request: () => {
        t.phases.push('approval');
        setTimeout(() => controller.abort(), 1);
        return new Promise<never>(() => {});
      },
    };
    const result = await run(t, {}, {}, { signal: controller.signal, approval });
    expect(t.phases).toEqual(['pre', 'approval', 'finalize', 'result']);
    expect(errorOf(result).code).toBe('ABORTED_BEFORE_DISPATCH');
  });

  it('row: approval channel answers garbage → PIPELINE_ERROR', async () => {
    const t = tracedSeams({ pre: () => ({ kind: 'ask' }) });
    const approval = { request: async () => 'maybe' as never };
    const result = await run(t, {}, {}, { approval });
    expect(t.phases).toEqual(['pre', 'finalize', 'result']);
    expect(errorOf(result).code).toBe('PIPELINE_ERROR');
  });

  it('row: aborted in guards → ABORTED_BEFORE_DISPATCH', async () => {
    const controller = new AbortController();
    const t = tracedSeams({
      guard: () => {
        controller.abort();
        return undefined;
      },
    });
    const result = await run(t, {}, {}, { signal: controller.signal });
    expect(t.phases).toEqual(['pre', 'guard', 'finalize', 'result']);
    expect(errorOf(result).code).toBe('ABORTED_BEFORE_DISPATCH');
  });

  it('row: pre deny → post runs, DENIED with the reason, contexts kept', async () => {
    const t = tracedSeams({
      pre: () => ({ kind: 'deny', reason: 'nope', additionalContexts: [ctx('pre')] }),
    });
    const result = await run(t);
    expect(t.phases).toEqual(['pre', 'post', 'finalize', 'result']);
    expect(errorOf(result)).toEqual({ code: 'DENIED', message: 'nope' });
    expect(result.content).toEqual([{ type: 'text', text: 'Error: nope' }]);
    expect(texts(result.additionalContexts)).toEqual(['pre']);
    expectFrozenDeep(result);
  });

  it('row: guard denies (after a forced allow) → post runs, DENIED', async () => {
    const t = tracedSeams({ pre: () => ({ kind: 'allow' }), guard: () => 'guarded' });
    const result = await run(t);
    expect(t.phases).toEqual(['pre', 'guard', 'post', 'finalize', 'result']);
    expect(errorOf(result)).toEqual({ code: 'DENIED', message: 'guarded' });
  });

  for (const outcome of ['rejected', 'cancelled', 'unavailable'] as const) {
    it(`row: ask → approval ${outcome} → DENIED naming it, guards skipped, post runs`, async () => {
      const t = tracedSeams({ pre: () => ({ kind: 'ask', reason: 'why' }) });
      const approval = { request: async () => also(t.phases.push('approval'), outcome) };
      const result = await run(t, {}, {}, { approval });
      expect(t.phases).toEqual(['pre', 'approval', 'post', 'finalize', 'result']);
      expect(errorOf(result).code).toBe('DENIED');
      expect(errorOf(result).message).toContain(outcome);
    });
  }

  it('row: ask with no approval channel → DENIED "no approval channel"', async () => {
    const t = tracedSeams({ pre: () => ({ kind: 'ask' }) });
    const result = await run(t);
    expect(t.phases).toEqual(['pre', 'post', 'finalize', 'result']);
    expect(errorOf(result).message).toContain('no approval channel');
  });

  it('row: ask, agent-less call, registry channel only → DENIED "no agent"', async () => {
    const t = tracedSeams({ pre: () => ({ kind: 'ask' }), approval: () => 'allowed-once' });
    const result = await run(t);
    expect(t.phases).toEqual(['pre', 'post', 'finalize', 'result']);
    expect(errorOf(result).message).toContain('no agent');
  });

  it('row: ask granted → guards then body', async () => {
    const t = tracedSeams({ pre: () => ({ kind: 'ask' }) });
    const approval = { request: async () => also(t.phases.push('approval'), 'allowed-once' as const) };
    const result = await run(t, {}, {}, { approval });
    expect(t.phases).toEqual(['pre', 'approval', 'guard', 'execute', 'body', 'post', 'finalize', 'result']);
    expect(result.isError).toBe(false);
  });

  it('row: pre listener throws → PIPELINE_ERROR, no post', async () => {
    const t = tracedSeams({
      pre: () => {
        throw new Error('boom');
      },
    });
    const result = await run(t);
    expect(t.phases).toEqual(['pre', 'finalize', 'result']);
    expect(errorOf(result).code).toBe('PIPELINE_ERROR');
    expect(result.content).toEqual([{ type: 'text', text: `Error: ${errorOf(result).message}` }]);
  });

  it('row: approval request throws → PIPELINE_ERROR, no guard, no post', async () => {
    const t = tracedSeams({ pre: () => ({ kind: 'ask', additionalContexts: [ctx('pre')] }) });
    const approval = {
      request: async () => {
        t.phases.push('approval');
        throw new Error('channel down');
      },
    };
    const result = await run(t, {}, {}, { approval });
    expect(t.phases).toEqual(['pre', 'approval', 'finalize', 'result']);
    expect(errorOf(result).code).toBe('PIPELINE_ERROR');
    expect(texts(result.additionalContexts)).toEqual(['pre']);
  });

  it('row: guard throws → PIPELINE_ERROR, no post', async () => {
    const t = tracedSeams({
      guard: () => {
        throw new Error('g');
      },
    });
    const result = await run(t);
    expect(t.phases).toEqual(['pre', 'guard', 'finalize', 'result']);
    expect(errorOf(result).code).toBe('PIPELINE_ERROR');
  });

  it('row: unknown tool → pre, guard, execute, post, no finalize, UNKNOWN_TOOL', async () => {
    const t = tracedSeams({});
    const tools = createToolRegistry();
    const result = await tools.execute({ name: 'ghost', arguments: {} }, { seams: t.seams });
    expect(t.phases).toEqual(['pre', 'guard', 'execute', 'post', 'result']);
    expect(errorOf(result).code).toBe('UNKNOWN_TOOL');
    expect(result.content).toEqual([{ type: 'text', text: `Error: ${errorOf(result).message}` }]);
  });

  it('row: arguments fail the schema → INVALID_ARGS naming the field, post + finalize ran', async () => {
    const t = tracedSeams({});
    const result = await run(t, '{"n":"x"}');
    expect(t.phases).toEqual(['pre', 'guard', 'execute', 'post', 'finalize', 'result']);
    expect(errorOf(result).code).toBe('INVALID_ARGS');
    expect(errorOf(result).message).toContain('n');
  });

  it('row: raw text that is not JSON → INVALID_ARGS through validation (pre ran)', async () => {
    const t = tracedSeams({});
    const result = await run(t, 'not json');
    expect(t.phases).toEqual(['pre', 'guard', 'execute', 'post', 'finalize', 'result']);
    expect(errorOf(result).code).toBe('INVALID_ARGS');
  });

  it('row: body throws → TOOL_FAILED with its message', async () => {
    const t = tracedSeams({});
    const result = await run(
      t,
      {},
      {
        execute: () => {
          t.phases.push('body');
          throw new Error('kaput');
        },
      },
    );
    expect(t.phases).toEqual(['pre', 'guard', 'execute', 'body', 'post', 'finalize', 'result']);
    expect(errorOf(result).code).toBe('TOOL_FAILED');
    expect(errorOf(result).message).toContain('kaput');
    expect(result.content).toEqual([{ type: 'text', text: `Error: ${errorOf(result).message}` }]);
  });

  it('row: body returns a value failing the output schema / not JSON → INVALID_TOOL_OUTPUT', async () => {
    for (const [output, value] of [
      [{ schema: z.number() }, 'str'],
      [undefined, { f: () => 1 }],
    ] as const) {
      const t = tracedSeams({});
      const result = await run(t, {}, {
        ...(output ? { output } : {}),
        execute: () => also(t.phases.push('body'), value),
      } as never);
      expect(t.phases).toEqual(['pre', 'guard', 'execute', 'body', 'post', 'finalize', 'result']);
      expect(errorOf(result).code).toBe('INVALID_TOOL_OUTPUT');
    }
  });

  it('row: body aborted, returns anyway → ABORTED, post + finalize ran', async () => {
    const controller = new AbortController();
    const t = tracedSeams({});
    const result = await run(
      t,
      {},
      {
        execute: async () => {
          t.phases.push('body');
          controller.abort();
          return 'done anyway';
        },
      },
      { signal: controller.signal },
    );
    expect(t.phases).toEqual(['pre', 'guard', 'execute', 'body', 'post', 'finalize', 'result']);
    expect(errorOf(result).code).toBe('ABORTED');
  });

  it('row: body does not stop within the grace → ABORTED note "did not stop", post + finalize ran', async () => {
    const controller = new AbortController();
    const t = tracedSeams({});
    const result = await run(
      t,
      {},
      {
        execute: () => {
          t.phases.push('body');
          setTimeout(() => controller.abort(), 1);
          return new Promise(() => {});
        },
      },
      { signal: controller.signal, cancelGraceMs: 10 },
    );
    expect(t.phases).toEqual(['pre', 'guard', 'execute', 'body', 'post', 'finalize', 'result']);
    expect(errorOf(result)).toMatchObject({ code: 'ABORTED', note: 'did not stop' });
  });

  it('row: wrapper short-circuits → no body, content re-rendered, post/finalize ran', async () => {
    const t = tracedSeams({
      wrap: async () => ({ isError: false, value: { a: 1 }, content: [{ type: 'text', text: 'stale' }] }),
    });
    const result = await run(t);
    expect(t.phases).toEqual(['pre', 'guard', 'execute', 'post', 'finalize', 'result']);
    expect(result).toMatchObject({
      isError: false,
      value: { a: 1 },
      content: [{ type: 'text', text: '{"a":1}' }],
    });
  });

  it('row: wrapper throws → PIPELINE_ERROR, post skipped, finalize ran, body contexts dropped', async () => {
    const t = tracedSeams({
      pre: () => ({ kind: 'allow', additionalContexts: [ctx('pre')] }),
      wrap: async (_e, next) => {
        await next();
        throw new Error('wrap');
      },
    });
    const result = await run(t, {}, {
      execute: (_a: unknown, exec: { deferContext(c: HookContext): void }) => {
        t.phases.push('body');
        exec.deferContext(ctx('body'));
        return 'x';
      },
    } as never);
    expect(t.phases).toEqual(['pre', 'guard', 'execute', 'body', 'finalize', 'result']);
    expect(errorOf(result).code).toBe('PIPELINE_ERROR');
    expect(texts(result.additionalContexts)).toEqual(['pre']);
  });

  it('row: post throws / invalid / accept{value} on failure → PIPELINE_ERROR, finalize ran, contexts pre only', async () => {
    const posts = [
      () => {
        throw new Error('p');
      },
      () => ({ kind: 'maybe' }),
      () => ({ kind: 'accept', content: [{ type: 'text', text: 'a' }], value: 1 }),
    ];
    for (const post of posts) {
      const t = tracedSeams({ pre: () => ({ kind: 'allow', additionalContexts: [ctx('pre')] }), post });
      const result = await run(t);
      expect(t.phases).toEqual(['pre', 'guard', 'execute', 'body', 'post', 'finalize', 'result']);
      expect(errorOf(result).code).toBe('PIPELINE_ERROR');
      expect(texts(result.additionalContexts)).toEqual(['pre']);
    }
    const t = tracedSeams({ post: () => ({ kind: 'accept', value: 'fixed' }) });
    const result = await run(t, {}, {
      execute: () => {
        throw new Error('x');
      },
    } as never);
    expect(errorOf(result).code).toBe('PIPELINE_ERROR');
  });

  it('row: post block → BLOCKED, content = feedback, contexts pre + block only', async () => {
    const t = tracedSeams({
      pre: () => ({ kind: 'allow', additionalContexts: [ctx('pre')] }),
      post: () => ({
        kind: 'block',
        feedback: [{ type: 'text', text: 'no way' }],
        additionalContexts: [ctx('post')],
      }),
    });
    const result = await run(t, {}, {
      execute: (_a: unknown, exec: { deferContext(c: HookContext): void }) => {
        t.phases.push('body');
        exec.deferContext(ctx('body'));
        return 'x';
      },
    } as never);
    expect(t.phases).toEqual(['pre', 'guard', 'execute', 'body', 'post', 'finalize', 'result']);
    expect(errorOf(result).code).toBe('BLOCKED');
    expect(result.content).toEqual([{ type: 'text', text: 'no way' }]);
    expect(texts(result.additionalContexts)).toEqual(['pre', 'post']);
  });

  it('row: finalizer throws → PIPELINE_ERROR, called once', async () => {
    const finalizer = throwingFinalizer();
    const t = tracedSeams({});
    const result = await run(t, {}, { finalizeContent: finalizer.finalizeContent });
    expect(finalizer.calls()).toBe(1);
    expect(errorOf(result).code).toBe('PIPELINE_ERROR');
    expect(t.results[0]).toBe(result);
  });

  it('row: finalizer throws on a denied call → PIPELINE_ERROR, called once', async () => {
    const finalizer = throwingFinalizer();
    const t = tracedSeams({ pre: () => ({ kind: 'deny', reason: 'r' }) });
    const result = await run(t, {}, { finalizeContent: finalizer.finalizeContent });
    expect(finalizer.calls()).toBe(1);
    expect(errorOf(result).code).toBe('PIPELINE_ERROR');
  });

  it('finalizeContent may only replace content: replaces content of a success and of a denial; undefined keeps', async () => {
    const t = tracedSeams({ pre: () => ({ kind: 'deny', reason: 'r' }) });
    const finalizeContent = () => [{ type: 'text' as const, text: 'final' }];
    const denied = await run(t, {}, { finalizeContent });
    expect(denied.content).toEqual([{ type: 'text', text: 'final' }]);
    expect(errorOf(denied)).toEqual({ code: 'DENIED', message: 'r' });
    const ok = await run(tracedSeams({}), {}, { finalizeContent });
    expect(ok).toMatchObject({ isError: false, value: 'ok', content: [{ type: 'text', text: 'final' }] });
  });

  it('finalize column: exactly once for each outcome of a known tool', async () => {
    const cases: Array<[Parameters<typeof tracedSeams>[0], unknown, Record<string, unknown>]> = [
      [{}, {}, {}],
      [{ pre: () => ({ kind: 'deny', reason: 'r' }) }, {}, {}],
      [
        {
          pre: () => {
            throw new Error('x');
          },
        },
        {},
        {},
      ],
      [{ guard: () => 'no' }, {}, {}],
      [{ post: () => ({ kind: 'block', feedback: [] }) }, {}, {}],
      [
        {
          post: () => {
            throw new Error('p');
          },
        },
        {},
        {},
      ],
      [
        {
          wrap: async () => {
            throw new Error('w');
          },
        },
        {},
        {},
      ],
      [{}, '{"n":"bad"}', {}],
      [{}, { f: () => 1 }, {}],
      [{}, {}, { signal: AbortSignal.abort() }],
    ];
    for (const [options, args, opts] of cases) {
      const t = tracedSeams(options);
      await run(t, args, {}, opts);
      expect(t.phases.filter((p) => p === 'finalize')).toHaveLength(1);
      expect(t.phases.filter((p) => p === 'result')).toHaveLength(1);
    }
  });

  it('row: finalizer throws / returns invalid content → PIPELINE_ERROR, called once', async () => {
    let calls = 0;
    const result = await run(tracedSeams({}), {}, { finalizeContent: () => also(calls++, 42) } as never);
    expect(calls).toBe(1);
    expect(errorOf(result).code).toBe('PIPELINE_ERROR');
    expectFrozenDeep(result);
  });
});
