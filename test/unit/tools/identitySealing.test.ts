// tools.md § Identity sealing: what is read once when a call is created.

import { createSeams, createToolRegistry } from 'seamchart';
import { describe, expect, it, vi } from 'vitest';
import { also, errorOf, quiet, run, tool, tracedSeams } from './pipeline.js';

describe('tools.md § Identity sealing', () => {
  it('finalizeContent snapshotted: a tool unregistered mid-call still finalizes', async () => {
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

  it('definition snapshotted: unregistered mid-call, post accept{value} still re-renders with the sealed definition', async () => {
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

  it('arguments: empty / whitespace text → {}; NaN, cycles, class instances → INVALID_ARGS before policy', async () => {
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

  it('token: the same in every phase; a nested call carries the parent token only in parent', async () => {
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

  it('a nested call made from a tool body, both with listeners, logs no XState warning', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const seams = createSeams({ logger: quiet });
      seams.on('tools/pre-execute', (_exec, next) => next());
      const tools = createToolRegistry();
      tools.register(tool({ name: 'inner' }));
      tools.register(
        tool({
          name: 'outer',
          execute: async (_a: unknown, exec: { token: symbol }) => {
            const inner = await tools.execute(
              { name: 'inner', arguments: {}, parent: exec.token },
              { seams },
            );
            return inner.isError ? 'inner failed' : 'x';
          },
        } as never),
      );
      const result = await tools.execute({ name: 'outer', arguments: {} }, { seams });
      expect(result).toMatchObject({ isError: false, value: 'x' });
      expect(warn.mock.calls.map((args) => String(args[0]))).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });
});
