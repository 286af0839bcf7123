// tools.md § Result shape: what every result handed out looks like.

import { createSeams, createToolRegistry, type HookContext, type ToolResult } from 'seamchart';
import { describe, expect, it } from 'vitest';
import { also, ctx, expectFrozenDeep, quiet, run, tool, tracedSeams } from './pipeline.js';

describe('tools.md § Result shape', () => {
  it('every result is deep-frozen, and the caller object is untouched', async () => {
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
});
