import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Agent,
  type ApprovalOutcome,
  checkInvariants,
  createAgent,
  createSeams,
  createToolRegistry,
  defineTool,
  type HookContext,
  plugins,
  type Seams,
  scriptedModel,
  type ToolResult,
} from '../../../index.js';

const ctx = (text: string): HookContext => ({
  content: [{ type: 'text', text }],
  source: { kind: 'plugin', plugin: 'audit' },
});
const texts = (contexts: readonly HookContext[] | undefined): string[] =>
  (contexts ?? []).map((c) => (c.content[0] as { text: string }).text);
const quiet = { error: () => {}, warn: () => {} };
/** Runs `effect` for its side effect (already evaluated) and yields `value`. */
const also = <T>(_effect: unknown, value: T): T => value;

interface Trace {
  readonly seams: Seams;
  readonly phases: string[];
  readonly results: ToolResult[];
}

/** Seams that record which phase ran; `options` adds behaviour per phase. */
function tracedSeams(options: {
  pre?: (exec: never) => unknown;
  guard?: (exec: never) => string | undefined;
  wrap?: (exec: never, next: (o?: { signal: AbortSignal }) => Promise<ToolResult>) => Promise<ToolResult>;
  post?: (c: { result: ToolResult }, next: () => Promise<unknown>) => unknown;
  approval?: () => Promise<ApprovalOutcome> | ApprovalOutcome;
}): Trace {
  const seams = createSeams({ logger: quiet });
  const phases: string[] = [];
  const results: ToolResult[] = [];
  seams.on('tools/pre-execute', async (exec, next) => {
    phases.push('pre');
    return (options.pre ? options.pre(exec as never) : next()) as never;
  });
  seams.guard((exec) => {
    phases.push('guard');
    return options.guard ? options.guard(exec as never) : undefined;
  });
  seams.on('tools/execute', async (exec, next) => {
    phases.push('execute');
    return (options.wrap ? options.wrap(exec as never, next as never) : next()) as never;
  });
  seams.on('tools/post-execute', async (c, next) => {
    phases.push('post');
    return (options.post ? options.post(c as never, next as never) : next()) as never;
  });
  seams.on('tools/result', (c) => {
    phases.push('result');
    results.push(c.result);
  });
  if (options.approval) {
    const answer = options.approval;
    seams.setApproval({
      request: async () => {
        phases.push('approval');
        return answer();
      },
    });
  }
  return { seams, phases, results };
}

function tool(overrides: Partial<Parameters<typeof defineTool>[0]> & { phases?: string[] } = {}) {
  const { phases, ...rest } = overrides;
  return defineTool({
    name: 'probe',
    description: 'probe',
    parameters: z.object({ n: z.number().optional() }),
    execute: () => {
      phases?.push('body');
      return 'ok';
    },
    finalizeContent: () => {
      phases?.push('finalize');
      return undefined;
    },
    ...rest,
  } as never);
}

async function run(
  trace: Trace,
  args: unknown = {},
  extra: Partial<Parameters<typeof defineTool>[0]> = {},
  opts: Record<string, unknown> = {},
) {
  const tools = createToolRegistry();
  tools.register(tool({ phases: trace.phases, ...extra }));
  const result = await tools.execute({ name: 'probe', arguments: args }, {
    seams: trace.seams,
    ...opts,
  } as never);
  return result;
}

function expectFrozenDeep(value: unknown): void {
  if (value !== null && typeof value === 'object') {
    expect(Object.isFrozen(value)).toBe(true);
    for (const inner of Object.values(value)) expectFrozenDeep(inner);
  }
}

function errorOf(result: ToolResult) {
  expect(result.isError).toBe(true);
  return (result as Extract<ToolResult, { isError: true }>).error;
}

describe('phase table rows (standalone tools.execute)', () => {
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
    let calls = 0;
    const t = tracedSeams({});
    const result = await run(
      t,
      {},
      {
        finalizeContent: () => {
          calls++;
          throw new Error('fin');
        },
      },
    );
    expect(calls).toBe(1);
    expect(errorOf(result).code).toBe('PIPELINE_ERROR');
    expect(t.results[0]).toBe(result);
  });

  it('finalizer throws on a denied call → PIPELINE_ERROR, called once', async () => {
    let calls = 0;
    const t = tracedSeams({ pre: () => ({ kind: 'deny', reason: 'r' }) });
    const result = await run(
      t,
      {},
      {
        finalizeContent: () => {
          calls++;
          throw new Error('fin');
        },
      },
    );
    expect(calls).toBe(1);
    expect(errorOf(result).code).toBe('PIPELINE_ERROR');
  });
});

describe('rules', () => {
  it('contexts order: pre, body-deferred, post', async () => {
    const t = tracedSeams({
      pre: () => ({ kind: 'allow', additionalContexts: [ctx('pre')] }),
      post: async (_c, next) => ({
        ...((await next()) as object),
        kind: 'accept',
        additionalContexts: [ctx('post')],
      }),
    });
    const result = await run(t, {}, {
      execute: (_a: unknown, exec: { deferContext(c: HookContext): void }) => {
        exec.deferContext(ctx('body1'));
        exec.deferContext(ctx('body2'));
        return 'x';
      },
    } as never);
    expect(texts(result.additionalContexts)).toEqual(['pre', 'body1', 'body2', 'post']);
    expectFrozenDeep(result);
  });

  it('finalizeContent replaces content of a success and of a denial; undefined keeps', async () => {
    const t = tracedSeams({ pre: () => ({ kind: 'deny', reason: 'r' }) });
    const finalizeContent = () => [{ type: 'text' as const, text: 'final' }];
    const denied = await run(t, {}, { finalizeContent });
    expect(denied.content).toEqual([{ type: 'text', text: 'final' }]);
    expect(errorOf(denied)).toEqual({ code: 'DENIED', message: 'r' });
    const ok = await run(tracedSeams({}), {}, { finalizeContent });
    expect(ok).toMatchObject({ isError: false, value: 'ok', content: [{ type: 'text', text: 'final' }] });
  });

  it('tool unregistered mid-call still finalizes (snapshotted at sealing)', async () => {
    const tools = createToolRegistry();
    let dispose: () => void = () => {};
    let finalized = 0;
    const seams = createSeams({ logger: quiet });
    seams.on('tools/pre-execute', async (_e, next) => {
      dispose();
      return next();
    });
    dispose = tools.register(
      tool({
        finalizeContent: () => {
          finalized++;
          return [{ type: 'text', text: 'fin' }];
        },
      }),
    );
    const result = await tools.execute({ name: 'probe', arguments: {} }, { seams });
    expect(finalized).toBe(1);
    expect(result.content).toEqual([{ type: 'text', text: 'fin' }]);
  });

  it('unregistered mid-call: post accept{value} still re-renders with the sealed definition', async () => {
    const tools = createToolRegistry();
    let dispose: () => void = () => {};
    const seams = createSeams({ logger: quiet });
    seams.on('tools/post-execute', async () => {
      dispose();
      return { kind: 'accept', value: 'v2' };
    });
    dispose = tools.register(tool({ finalizeContent: undefined } as never));
    const result = await tools.execute({ name: 'probe', arguments: {} }, { seams });
    expect(result).toMatchObject({ isError: false, value: 'v2' });
  });

  it('post accept{content} keeps value; accept{value} re-validates and re-renders', async () => {
    const a = await run(
      tracedSeams({ post: () => ({ kind: 'accept', content: [{ type: 'text', text: 'c' }] }) }),
      {},
      { finalizeContent: undefined } as never,
    );
    expect(a).toMatchObject({ isError: false, value: 'ok', content: [{ type: 'text', text: 'c' }] });
    const b = await run(tracedSeams({ post: () => ({ kind: 'accept', value: 3 }) }), {}, {
      output: { schema: z.string() },
      finalizeContent: undefined,
    } as never);
    expect(errorOf(b).code).toBe('INVALID_TOOL_OUTPUT');
    const c = await run(tracedSeams({ post: () => ({ kind: 'accept', value: { x: 1 } }) }), {}, {
      finalizeContent: undefined,
    } as never);
    expect(c).toMatchObject({
      isError: false,
      value: { x: 1 },
      content: [{ type: 'text', text: '{"x":1}' }],
    });
  });

  it('tools/result sees the final frozen result; a throwing observer changes nothing', async () => {
    const seams = createSeams({ logger: quiet });
    const seen: ToolResult[] = [];
    seams.on('tools/result', () => {
      throw new Error('observer');
    });
    seams.on('tools/result', (c) => {
      seen.push(c.result);
    });
    const tools = createToolRegistry();
    tools.register(tool({}));
    const result = await tools.execute({ name: 'probe', arguments: {} }, { seams });
    expect(seen[0]).toBe(result);
    expectFrozenDeep(result);
    expect(result.isError).toBe(false);
  });

  it('wrapper next({signal}): body sees it; post sees the call signal', async () => {
    const mine = new AbortController();
    const seen: AbortSignal[] = [];
    const seams = createSeams({ logger: quiet });
    let callSignal: AbortSignal | undefined;
    seams.on('tools/pre-execute', async (exec, next) => {
      callSignal = exec.signal;
      return next();
    });
    seams.on('tools/execute', async (_exec, next) => next({ signal: mine.signal }));
    seams.on('tools/post-execute', async (c, next) => {
      seen.push(c.exec.signal);
      return next();
    });
    const tools = createToolRegistry();
    tools.register(
      tool({
        execute: (_a: unknown, exec: { signal: AbortSignal }) => also(seen.push(exec.signal), 'x'),
      } as never),
    );
    await tools.execute({ name: 'probe', arguments: {} }, { seams });
    expect(seen[0]).toBe(mine.signal);
    expect(seen[1]).toBe(callSignal);
  });

  it('schemas() lexicographic with JSON Schema', () => {
    const tools = createToolRegistry();
    tools.register(tool({ name: 'zeta' }));
    tools.register(tool({ name: 'Alpha' }));
    tools.register(tool({ name: 'alpha' }));
    const schemas = tools.schemas();
    expect(schemas.map((s) => s.name)).toEqual(['Alpha', 'alpha', 'zeta']);
    expect(schemas[0]!.parameters).toMatchObject({ type: 'object', properties: { n: { type: 'number' } } });
  });

  it('results are deep-frozen and the caller object untouched', async () => {
    const args = { n: 1 };
    let seenArgs: unknown;
    const result = await run(tracedSeams({}), args, {
      execute: (a: unknown) => {
        seenArgs = a;
        return { v: [1] };
      },
    } as never);
    expect(Object.isFrozen(args)).toBe(false);
    expect(seenArgs).toEqual(args);
    expectFrozenDeep(result);
  });
});

describe('more standalone rules', () => {
  it('cancel during post-execute: success becomes ABORTED; finalize + result still run', async () => {
    const controller = new AbortController();
    const t = tracedSeams({
      post: () => {
        controller.abort();
        return new Promise(() => {});
      },
    });
    const result = await run(t, {}, {}, { signal: controller.signal });
    expect(t.phases).toEqual(['pre', 'guard', 'execute', 'body', 'post', 'finalize', 'result']);
    expect(errorOf(result).code).toBe('ABORTED');
  });

  it('wrappers receive normalized results: unknown tool and throwing body arrive as isError', async () => {
    const seen: unknown[] = [];
    const seams = createSeams({ logger: quiet });
    seams.on('tools/execute', async (_e, next) => {
      const r = await next();
      seen.push(r.isError && r.error.code);
      return r;
    });
    const tools = createToolRegistry();
    tools.register(
      tool({
        execute: () => {
          throw new Error('x');
        },
      } as never),
    );
    await tools.execute({ name: 'ghost', arguments: {} }, { seams });
    await tools.execute({ name: 'probe', arguments: {} }, { seams });
    expect(seen).toEqual(['UNKNOWN_TOOL', 'TOOL_FAILED']);
  });

  it('wrapper short-circuit success failing the output schema → INVALID_TOOL_OUTPUT; garbage → PIPELINE_ERROR', async () => {
    const a = await run(tracedSeams({ wrap: async () => ({ isError: false, value: 5, content: [] }) }), {}, {
      output: { schema: z.string() },
    } as never);
    expect(errorOf(a).code).toBe('INVALID_TOOL_OUTPUT');
    const b = await run(tracedSeams({ wrap: async () => ({ nope: true }) as never }));
    expect(errorOf(b).code).toBe('PIPELINE_ERROR');
  });

  it('deny: pre and post contexts both kept, in order', async () => {
    const t = tracedSeams({
      pre: () => ({ kind: 'deny', reason: 'r', additionalContexts: [ctx('pre')] }),
      post: () => ({ kind: 'accept', additionalContexts: [ctx('post')] }),
    });
    const result = await run(t);
    expect(texts(result.additionalContexts)).toEqual(['pre', 'post']);
  });

  it('finalize exactly once for each outcome of a known tool', async () => {
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
});

describe('through an agent', () => {
  async function agentRun(options: {
    tools: ReturnType<typeof createToolRegistry>;
    seams: Seams;
    calls: Array<{ id: string; name: string; arguments: Record<string, unknown> }>;
    extra?: Record<string, unknown>;
  }): Promise<Agent> {
    const agent = createAgent({
      seams: options.seams,
      tools: options.tools,
      model: scriptedModel([{ toolCalls: options.calls as never }, { text: 'done' }]),
      logger: quiet,
      ...options.extra,
    } as never);
    agent.followup('go');
    await agent.whenIdle();
    return agent;
  }
  const rows = (agent: Agent): string[] =>
    agent.log.events
      .filter((e) => ['tool/call', 'tool/result', 'context/message'].includes(e.type))
      .map((e) => {
        const d = e.data as {
          callId?: string;
          content?: Array<{ text: string }>;
          error?: { code: string; message: string };
        };
        if (e.type === 'context/message') return `ctx:${d.content?.[0]?.text}`;
        return `${e.type}:${d.callId}${d.error ? `:${d.error.code}` : ''}`;
      });

  it('approval through createAgent({ approval }) and seams.setApproval; no channel → "no approval channel"', async () => {
    for (const [where, outcome, expected] of [
      ['agent', 'allowed-once', null],
      ['agent', 'rejected', 'rejected'],
      ['seams', 'allowed-once', null],
      ['seams', 'unavailable', 'unavailable'],
      ['none', null, 'no approval channel'],
    ] as const) {
      const seams = createSeams({ logger: quiet });
      seams.on('tools/pre-execute', async () => ({ kind: 'ask', reason: 'check' }));
      const channel = { request: async () => outcome! };
      if (where === 'seams') seams.setApproval(channel);
      const tools = createToolRegistry();
      tools.register(tool({}));
      const agent = await agentRun({
        tools,
        seams,
        calls: [{ id: 'c1', name: 'probe', arguments: {} }],
        ...(where === 'agent' ? { extra: { approval: channel } } : {}),
      });
      const result = agent.log.events.find((e) => e.type === 'tool/result')!.data as {
        isError: boolean;
        error?: { code: string; message: string };
      };
      if (expected === null) expect(result.isError).toBe(false);
      else {
        expect(result.error?.code).toBe('DENIED');
        expect(result.error?.message).toContain(expected);
      }
      expect(checkInvariants(agent.log.events)).toEqual([]);
      await agent.dispose();
    }
  });

  it('contexts per call: pre, body-deferred, post; all after the last tool/result', async () => {
    const seams = createSeams({ logger: quiet });
    seams.on('tools/pre-execute', async (exec) => ({
      kind: 'allow',
      additionalContexts: [ctx(`pre-${exec.callId}`)],
    }));
    seams.on('tools/post-execute', async (c) => ({
      kind: 'accept',
      additionalContexts: [ctx(`post-${c.exec.callId}`)],
    }));
    const tools = createToolRegistry();
    tools.register(
      tool({
        concurrency: 'parallel',
        execute: (_a: unknown, exec: { callId: string; deferContext(c: HookContext): void }) => {
          exec.deferContext(ctx(`body-${exec.callId}`));
          return 'x';
        },
      } as never),
    );
    const agent = await agentRun({
      tools,
      seams,
      calls: [
        { id: 'c1', name: 'probe', arguments: {} },
        { id: 'c2', name: 'probe', arguments: {} },
      ],
    });
    expect(rows(agent)).toEqual([
      'tool/call:c1',
      'tool/call:c2',
      'tool/result:c1',
      'tool/result:c2',
      'ctx:pre-c1',
      'ctx:body-c1',
      'ctx:post-c1',
      'ctx:pre-c2',
      'ctx:body-c2',
      'ctx:post-c2',
    ]);
    expect(checkInvariants(agent.log.events)).toEqual([]);
    await agent.dispose();
  });

  it('concurrency function form is read at start time with the arguments; maxParallelToolCalls caps bodies', async () => {
    const seams = createSeams({ logger: quiet });
    const tools = createToolRegistry();
    let inFlight = 0;
    let maxInFlight = 0;
    const seenArgs: unknown[] = [];
    tools.register(
      tool({
        concurrency: (args: { n?: number }) => also(seenArgs.push(args), args.n !== 0),
        execute: async () => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await new Promise((r) => setTimeout(r, 5));
          inFlight--;
          return 'x';
        },
      } as never),
    );
    const agent = await agentRun({
      tools,
      seams,
      extra: { maxParallelToolCalls: 2 },
      calls: [1, 2, 3, 4].map((n) => ({ id: `c${n}`, name: 'probe', arguments: { n } })),
    });
    expect(maxInFlight).toBe(2);
    expect(seenArgs).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    expect(rows(agent).slice(0, 4)).toEqual([
      'tool/call:c1',
      'tool/call:c2',
      'tool/result:c1',
      'tool/call:c3',
    ]);
    expect(checkInvariants(agent.log.events)).toEqual([]);
    await agent.dispose();
  });

  it('concurrency read when a call is about to start: an earlier call can change a later one', async () => {
    const seams = createSeams({ logger: quiet });
    const tools = createToolRegistry();
    let parallel = false;
    const trace: string[] = [];
    tools.register(
      tool({
        concurrency: () => parallel,
        execute: async (a: { n?: number }) => {
          trace.push(`start${a.n}`);
          if (a.n === 1) parallel = true;
          await new Promise((r) => setTimeout(r, 5));
          trace.push(`end${a.n}`);
          return 'x';
        },
      } as never),
    );
    const agent = await agentRun({
      tools,
      seams,
      calls: [1, 2, 3].map((n) => ({ id: `c${n}`, name: 'probe', arguments: { n } })),
    });
    expect(trace).toEqual(['start1', 'end1', 'start2', 'start3', 'end2', 'end3']);
    expect(checkInvariants(agent.log.events)).toEqual([]);
    await agent.dispose();
  });

  it('finalize runs once per call through an agent; unknown tool gets none; tool/result event per call', async () => {
    const seams = createSeams({ logger: quiet });
    const seenResults: string[] = [];
    seams.on('tools/result', (c) => {
      seenResults.push(c.exec.callId);
    });
    const tools = createToolRegistry();
    const finalized: string[] = [];
    tools.register(
      tool({
        finalizeContent: (exec: { callId: string }) => also(finalized.push(exec.callId), undefined),
      } as never),
    );
    const agent = await agentRun({
      tools,
      seams,
      calls: [
        { id: 'c1', name: 'probe', arguments: {} },
        { id: 'c2', name: 'ghost', arguments: {} },
      ],
    });
    expect(finalized).toEqual(['c1']);
    expect(seenResults).toEqual(['c1', 'c2']);
    expect(rows(agent)).toEqual([
      'tool/call:c1',
      'tool/result:c1',
      'tool/call:c2',
      'tool/result:c2:UNKNOWN_TOOL',
    ]);
    expect(checkInvariants(agent.log.events)).toEqual([]);
    await agent.dispose();
  });
});

describe('built-in plugins', () => {
  it('plugins.timeout: slow body → TOOL_TIMEOUT and the body signal aborted', async () => {
    const seams = createSeams({ logger: quiet });
    seams.use(plugins.timeout());
    const tools = createToolRegistry();
    let bodySignal: AbortSignal | undefined;
    tools.register(
      tool({
        timeoutMs: 10,
        execute: (_a: unknown, exec: { signal: AbortSignal }) => {
          bodySignal = exec.signal;
          return new Promise((resolve, reject) => {
            const t = setTimeout(() => resolve('late'), 1000);
            exec.signal.addEventListener('abort', () => also(clearTimeout(t), reject(new Error('stopped'))));
          });
        },
      } as never),
    );
    const result = await tools.execute({ name: 'probe', arguments: {} }, { seams });
    expect(errorOf(result).code).toBe('TOOL_TIMEOUT');
    expect(result.content).toEqual([{ type: 'text', text: `Error: ${errorOf(result).message}` }]);
    expect(bodySignal?.aborted).toBe(true);
  });

  it('plugins.timeout: a body ignoring its signal still yields TOOL_TIMEOUT after timeoutMs + grace', async () => {
    const seams = createSeams({ logger: quiet });
    seams.use(plugins.timeout({ defaultMs: 10 }));
    const tools = createToolRegistry();
    tools.register(tool({ execute: () => new Promise(() => {}) } as never));
    const started = Date.now();
    const result = await tools.execute({ name: 'probe', arguments: {} }, { seams, cancelGraceMs: 20 });
    expect(errorOf(result).code).toBe('TOOL_TIMEOUT');
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('plugins.retry: second attempt success stands; failed attempt contexts dropped', async () => {
    const seams = createSeams({ logger: quiet });
    seams.use(plugins.retry({ attempts: 3 }));
    const tools = createToolRegistry();
    let attempt = 0;
    tools.register(
      tool({
        execute: (_a: unknown, exec: { deferContext(c: HookContext): void }) => {
          attempt++;
          exec.deferContext(ctx(`attempt-${attempt}`));
          if (attempt === 1) throw new Error('flaky');
          return `ok-${attempt}`;
        },
      } as never),
    );
    const result = await tools.execute({ name: 'probe', arguments: {} }, { seams });
    expect(result).toMatchObject({ isError: false, value: 'ok-2' });
    expect(texts(result.additionalContexts)).toEqual(['attempt-2']);
    expect(attempt).toBe(2);
  });

  it('plugins.timeout + retry: timed-out attempt is retried', async () => {
    const seams = createSeams({ logger: quiet });
    seams.use(plugins.retry({ attempts: 2 }));
    seams.use(plugins.timeout({ defaultMs: 10 }));
    const tools = createToolRegistry();
    let attempt = 0;
    tools.register(
      tool({
        execute: (_a: unknown, exec: { signal: AbortSignal }) => {
          attempt++;
          if (attempt === 2) return 'second';
          return new Promise((_r, reject) =>
            exec.signal.addEventListener('abort', () => reject(new Error('x'))),
          );
        },
      } as never),
    );
    const result = await tools.execute({ name: 'probe', arguments: {} }, { seams });
    expect(result).toMatchObject({ isError: false, value: 'second' });
  });

  it('plugins.metrics: counts and durations per tool and per seam, as a plain object', async () => {
    const seams = createSeams({ logger: quiet });
    const metrics = plugins.metrics();
    seams.use(metrics);
    seams.on('tools/pre-execute', async (exec, next) =>
      (exec.arguments as { n?: number }).n === 1 ? { kind: 'deny', reason: 'r' } : next(),
    );
    const tools = createToolRegistry();
    tools.register(tool({}));
    await tools.execute({ name: 'probe', arguments: {} }, { seams });
    await tools.execute({ name: 'probe', arguments: { n: 1 } }, { seams });
    const snap = metrics.snapshot();
    expect(snap.tools.probe).toMatchObject({ calls: 2, errors: 1, codes: { DENIED: 1 } });
    expect(snap.seams['tools/pre-execute']?.calls).toBe(2);
    expect(snap.seams['tools/execute']?.calls).toBe(1);
    expect(snap.seams['tools/post-execute']?.calls).toBe(2);
    expect(JSON.parse(JSON.stringify(snap))).toEqual(snap);
  });
});

describe('sealing', () => {
  it('empty / whitespace text → {}; NaN, cycles, class instances → INVALID_ARGS before policy', async () => {
    let seen: unknown;
    const ok = await run(tracedSeams({}), '', {
      execute: (a: unknown) => {
        seen = a;
        return 'x';
      },
    } as never);
    expect(ok.isError).toBe(false);
    expect(seen).toEqual({});
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const bad of [{ n: Number.NaN }, cyclic, { d: new Date() }, new Map()]) {
      const t = tracedSeams({});
      const result = await run(t, bad);
      expect(errorOf(result).code).toBe('INVALID_ARGS');
      expect(t.phases).toEqual(['finalize', 'result']);
    }
  });

  it('token is the same in every phase; a nested call carries the parent token only in parent', async () => {
    const seams = createSeams({ logger: quiet });
    const tokens: Array<[string, symbol, symbol | undefined]> = [];
    seams.on('tools/pre-execute', async (exec, next) =>
      also(tokens.push(['pre', exec.token, exec.parent]), next()),
    );
    seams.on('tools/post-execute', async (c, next) =>
      also(tokens.push(['post', c.exec.token, c.exec.parent]), next()),
    );
    const tools = createToolRegistry();
    tools.register(tool({ name: 'inner' }));
    tools.register(
      tool({
        name: 'outer',
        execute: async (_a: unknown, exec: { token: symbol }) => {
          tokens.push(['body', exec.token, undefined]);
          await tools.execute({ name: 'inner', arguments: {}, parent: exec.token }, { seams });
          return 'x';
        },
      } as never),
    );
    await tools.execute({ name: 'outer', arguments: {} }, { seams });
    const outer = tokens[0]![1];
    expect(tokens.map(([p, t, parent]) => [p, t === outer, parent === outer])).toEqual([
      ['pre', true, false],
      ['body', true, false],
      ['pre', false, true],
      ['post', false, true],
      ['post', true, false],
    ]);
  });
});

describe('batch policy lane (through an agent)', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  async function runAgent(
    seams: Seams,
    tools: ReturnType<typeof createToolRegistry>,
    calls: number,
    extra = {},
  ) {
    const agent = createAgent({
      seams,
      tools,
      model: scriptedModel([
        {
          toolCalls: Array.from({ length: calls }, (_, i) => ({
            id: `c${i + 1}`,
            name: 'probe',
            arguments: { n: i + 1 },
          })),
        },
        { text: 'done' },
      ]),
      logger: quiet,
      ...extra,
    });
    agent.followup('go');
    await agent.whenIdle();
    return agent;
  }

  it('one policy lane: pre/approval/guards of one call never overlap post/finalize/result of another', async () => {
    const seams = createSeams({ logger: quiet });
    const events: string[] = [];
    let policy = 0;
    let review = 0;
    const overlaps: string[] = [];
    const enter = (kind: 'policy' | 'review', what: string) => {
      if (kind === 'policy') policy++;
      else review++;
      if (policy > 0 && review > 0) overlaps.push(what);
      events.push(`${what}>`);
    };
    const leave = (kind: 'policy' | 'review', what: string) => {
      if (kind === 'policy') policy--;
      else review--;
      events.push(`<${what}`);
    };
    seams.on('tools/pre-execute', async (exec, next) => {
      enter('policy', `pre-${exec.callId}`);
      await sleep(exec.callId === 'c2' ? 30 : 1);
      leave('policy', `pre-${exec.callId}`);
      return next();
    });
    seams.on('tools/post-execute', async (c, next) => {
      enter('review', `post-${c.exec.callId}`);
      await sleep(5);
      leave('review', `post-${c.exec.callId}`);
      return next();
    });
    const tools = createToolRegistry();
    tools.register(
      tool({
        concurrency: 'parallel',
        execute: async (a: { n?: number }) => {
          await sleep(a.n === 1 ? 1 : 5);
          return 'x';
        },
      } as never),
    );
    const agent = await runAgent(seams, tools, 3);
    expect(overlaps).toEqual([]);
    // c1 settled while c2 was in pre-execute: its commit runs before c3 starts (commit before refill).
    expect(events.filter((e) => e.startsWith('pre') || e.startsWith('post')).slice(0, 4)).toEqual([
      'pre-c1>',
      'pre-c2>',
      'post-c1>',
      'pre-c3>',
    ]);
    expect(checkInvariants(agent.log.events)).toEqual([]);
    await agent.dispose();
  });

  it('the next call waits while the previous one awaits approval', async () => {
    const seams = createSeams({ logger: quiet });
    const events: string[] = [];
    seams.on('tools/pre-execute', async (exec) => {
      events.push(`pre-${exec.callId}`);
      return exec.callId === 'c1' ? { kind: 'ask' } : { kind: 'allow' };
    });
    const approval = {
      request: async (q: { callId: string; toolName: string; reason?: string; agent?: { id: string } }) => {
        events.push(`approval-${q.callId}-${q.toolName}-${typeof q.agent?.id}`);
        await sleep(20);
        events.push(`approved-${q.callId}`);
        return 'allowed-once' as const;
      },
    };
    const tools = createToolRegistry();
    tools.register(tool({ concurrency: 'parallel' } as never));
    const agent = await runAgent(seams, tools, 2, { approval });
    expect(events).toEqual(['pre-c1', 'approval-c1-probe-string', 'approved-c1', 'pre-c2']);
    expect(checkInvariants(agent.log.events)).toEqual([]);
    await agent.dispose();
  });

  it('PIPELINE_ERROR through an agent: only pre contexts reach the log', async () => {
    const seams = createSeams({ logger: quiet });
    seams.on('tools/pre-execute', async () => ({ kind: 'allow', additionalContexts: [ctx('pre')] }));
    seams.on('tools/post-execute', async () => {
      throw new Error('post failed');
    });
    const tools = createToolRegistry();
    tools.register(
      tool({
        execute: (_a: unknown, exec: { deferContext(c: HookContext): void }) => {
          exec.deferContext(ctx('body'));
          return 'x';
        },
      } as never),
    );
    const agent = await runAgent(seams, tools, 1);
    const contexts = agent.log.events
      .filter((e) => e.type === 'context/message')
      .map((e) => (e.data as { content: Array<{ text: string }> }).content[0]!.text);
    expect(contexts).toEqual(['pre']);
    const result = agent.log.events.find((e) => e.type === 'tool/result')!.data as {
      error?: { code: string };
    };
    expect(result.error?.code).toBe('PIPELINE_ERROR');
    expect(checkInvariants(agent.log.events)).toEqual([]);
    await agent.dispose();
  });
});

describe('cancellation through an agent', () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  type Phase = 'pre' | 'approval' | 'body' | 'post';

  async function cancelDuring(phase: Phase) {
    const seams = createSeams({ logger: quiet });
    const phases: string[] = [];
    let entered!: () => void;
    const reached = new Promise<void>((r) => {
      entered = r;
    });
    const hang = (name: Phase) => {
      phases.push(name);
      if (name === phase) {
        entered();
        return new Promise<never>(() => {});
      }
      return undefined;
    };
    seams.on(
      'tools/pre-execute',
      async (_e, next) => (await hang('pre')) ?? (phase === 'approval' ? { kind: 'ask' } : next()),
    );
    seams.guard(() => {
      phases.push('guard');
      return undefined;
    });
    seams.on('tools/post-execute', async (_c, next) => (await hang('post')) ?? next());
    seams.on('tools/result', (c) => {
      phases.push(`result:${c.result.isError ? c.result.error.code : 'ok'}`);
    });
    const tools = createToolRegistry();
    tools.register(
      tool({
        execute: async () => (await hang('body')) ?? 'x',
        finalizeContent: () => also(phases.push('finalize'), undefined),
      } as never),
    );
    const agent = createAgent({
      seams,
      tools,
      model: scriptedModel([{ toolCalls: [{ id: 'c1', name: 'probe', arguments: {} }] }, { text: 'done' }]),
      logger: quiet,
      cancelGraceMs: 20,
      approval: { request: async () => (await hang('approval')) ?? 'allowed-once' },
    });
    agent.followup('go');
    await reached;
    agent.cancel();
    await agent.whenIdle();
    await sleep(1);
    const result = agent.log.events.find((e) => e.type === 'tool/result')!.data as {
      error?: { code: string; note?: string };
    };
    expect(checkInvariants(agent.log.events)).toEqual([]);
    await agent.dispose();
    return { phases, result };
  }

  it('cancel during pre-execute → ABORTED_BEFORE_DISPATCH; no post; finalize and tools/result once', async () => {
    const { phases, result } = await cancelDuring('pre');
    expect(result.error?.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(phases).toEqual(['pre', 'finalize', 'result:ABORTED_BEFORE_DISPATCH']);
  });

  it('cancel during approval → ABORTED_BEFORE_DISPATCH; no guard, no post', async () => {
    const { phases, result } = await cancelDuring('approval');
    expect(result.error?.code).toBe('ABORTED_BEFORE_DISPATCH');
    expect(phases).toEqual(['pre', 'approval', 'finalize', 'result:ABORTED_BEFORE_DISPATCH']);
  });

  it('cancel while a body ignores its signal → ABORTED "did not stop"; post, finalize, result once', async () => {
    const { phases, result } = await cancelDuring('body');
    expect(result.error).toMatchObject({ code: 'ABORTED', note: 'did not stop' });
    expect(phases).toEqual(['pre', 'guard', 'body', 'post', 'finalize', 'result:ABORTED']);
  });

  it('cancel during post-execute → ABORTED; finalize and result still run', async () => {
    const { phases, result } = await cancelDuring('post');
    expect(result.error?.code).toBe('ABORTED');
    expect(phases).toEqual(['pre', 'guard', 'body', 'post', 'finalize', 'result:ABORTED']);
  });
});

describe('frozen views and the around signal', () => {
  it('every result handed out is deep-frozen: to wrappers, post-execute, finalizeContent and tools/result', async () => {
    const seen: unknown[] = [];
    const seams = createSeams({ logger: quiet });
    seams.on('tools/pre-execute', async (exec, next) => also(seen.push(exec, exec.arguments), next()));
    seams.on('tools/execute', async (_e, next) => {
      const r = await next();
      seen.push(r);
      return r;
    });
    seams.on('tools/post-execute', async (c, next) => also(seen.push(c, c.result), next()));
    seams.on('tools/result', (c) => {
      seen.push(c.result);
    });
    const tools = createToolRegistry();
    tools.register(
      tool({
        execute: (_a: unknown, exec: { deferContext(c: HookContext): void }) => {
          exec.deferContext(ctx('body'));
          return { list: [1, { deep: true }] };
        },
        finalizeContent: (_e: unknown, r: ToolResult) => also(seen.push(r), undefined),
      } as never),
    );
    await tools.execute({ name: 'probe', arguments: { n: 1, nested: { a: [1] } } }, { seams });
    expect(seen).toHaveLength(7);
    for (const value of seen) {
      expect(Object.isFrozen(value)).toBe(true);
      if (value && typeof value === 'object' && 'content' in value) expectFrozenDeep(value);
    }
    expectFrozenDeep(seen[1]);
  });

  it('next({ signal }) replaces the signal for that dispatch only; a second next() sees the call signal', async () => {
    const seams = createSeams({ logger: quiet });
    const replacement = new AbortController();
    let callSignal: AbortSignal | undefined;
    seams.on('tools/execute', async (exec, next) => {
      callSignal = exec.signal;
      await next({ signal: replacement.signal });
      return next();
    });
    const seen: AbortSignal[] = [];
    const tools = createToolRegistry();
    tools.register(
      tool({
        execute: (_a: unknown, exec: { signal: AbortSignal }) => also(seen.push(exec.signal), 'x'),
      } as never),
    );
    await tools.execute({ name: 'probe', arguments: {} }, { seams });
    expect(seen[0]).toBe(replacement.signal);
    expect(seen[1]).toBe(callSignal);
  });
});

describe('defaults', () => {
  it('finalizeContent returning invalid content → PIPELINE_ERROR, called once', async () => {
    let calls = 0;
    const result = await run(tracedSeams({}), {}, { finalizeContent: () => also(calls++, 42) } as never);
    expect(calls).toBe(1);
    expect(errorOf(result).code).toBe('PIPELINE_ERROR');
    expectFrozenDeep(result);
  });

  it('maxParallelToolCalls defaults to 10', async () => {
    const seams = createSeams({ logger: quiet });
    const tools = createToolRegistry();
    let inFlight = 0;
    let maxInFlight = 0;
    tools.register(
      tool({
        concurrency: 'parallel',
        execute: async () => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await new Promise((r) => setTimeout(r, 5));
          inFlight--;
          return 'x';
        },
      } as never),
    );
    const agent = createAgent({
      seams,
      tools,
      model: scriptedModel([
        {
          toolCalls: Array.from({ length: 12 }, (_, i) => ({
            id: `c${i + 1}`,
            name: 'probe',
            arguments: {},
          })),
        },
        { text: 'done' },
      ]),
      logger: quiet,
    });
    agent.followup('go');
    await agent.whenIdle();
    expect(maxInFlight).toBe(10);
    expect(checkInvariants(agent.log.events)).toEqual([]);
    await agent.dispose();
  });
});
