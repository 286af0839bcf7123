import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { ToolResult } from '../../../kernel/index.js';
import { defineTool } from '../../../tools/index.js';
import { createFixture, deferred, textContext } from '../tools/fixtures.js';

function settleFlag(promise: Promise<ToolResult>): { result: ToolResult | undefined } {
  const box: { result: ToolResult | undefined } = { result: undefined };
  void promise.then((result) => {
    box.result = result;
  });
  return box;
}

/** Registers `stuck`, a tool whose body never settles and ignores its signal; resolves when it starts. */
function registerStuckTool(tools: { register(tool: ReturnType<typeof defineTool>): unknown }) {
  const started = deferred();
  tools.register(
    defineTool({
      name: 'stuck',
      description: 'x',
      parameters: z.object({}),
      execute: () => {
        started.resolve();
        return new Promise<string>(() => {});
      },
    }),
  );
  return started;
}

/** Runs `stuck` with a 1,000 ms grace under fake timers; resolves once its body runs, with the abort and the result box. */
async function startStuckCall(fixture: ReturnType<typeof createFixture>) {
  const { tools, seams } = fixture;
  const started = registerStuckTool(tools);
  const controller = new AbortController();
  const box = settleFlag(
    tools.execute(
      { name: 'stuck', arguments: '{}' },
      { seams, signal: controller.signal, cancelGraceMs: 1_000 },
    ),
  );
  await vi.advanceTimersByTimeAsync(0);
  await started.promise;
  return { controller, box };
}

describe('T13 cancellation', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('T13 (a) a body that ignores the abort and returns success is recorded ABORTED', async () => {
    const { tools, seams } = createFixture();
    const started = deferred();
    const release = deferred<string>();
    tools.register(
      defineTool({
        name: 'slow',
        description: 'x',
        parameters: z.object({}),
        execute: () => {
          started.resolve();
          return release.promise;
        },
      }),
    );
    const controller = new AbortController();
    const pending = tools.execute({ name: 'slow', arguments: '{}' }, { seams, signal: controller.signal });
    await started.promise;
    controller.abort();
    release.resolve('finished anyway');
    expect(await pending).toMatchInlineSnapshot(`
      {
        "content": [
          {
            "text": "Error: Tool call aborted",
            "type": "text",
          },
        ],
        "error": {
          "code": "ABORTED",
          "message": "Tool call aborted",
        },
        "isError": true,
      }
    `);
  });

  it('T13 (b) a signal aborted before the call: ABORTED_BEFORE_DISPATCH, no policy, finalize and result once', async () => {
    const { tools, seams } = createFixture();
    const finalize = vi.fn(() => undefined);
    const body = vi.fn(() => 'v');
    tools.register(
      defineTool({
        name: 'f',
        description: 'x',
        parameters: z.object({}),
        execute: body,
        finalizeContent: finalize,
      }),
    );
    const pre = vi.fn((_exec, next) => next());
    const post = vi.fn((_ctx, next) => next());
    const observed = vi.fn();
    seams.on('tools/pre-execute', pre);
    seams.on('tools/post-execute', post);
    seams.on('tools/result', observed);
    const result = await tools.execute(
      { name: 'f', arguments: '{}' },
      { seams, signal: AbortSignal.abort() },
    );
    expect([pre, body, post].map((fn) => fn.mock.calls.length)).toEqual([0, 0, 0]);
    expect([finalize, observed].map((fn) => fn.mock.calls.length)).toEqual([1, 1]);
    expect(result.isError && result.error).toEqual({
      code: 'ABORTED_BEFORE_DISPATCH',
      message: 'Tool call aborted before dispatch',
    });
  });

  it('T13 (c) a cancel during pre-execute leaves at once: ABORTED_BEFORE_DISPATCH, a late decision is ignored', async () => {
    const { tools, seams } = createFixture();
    const entered = deferred();
    const late = deferred<{ kind: 'allow' }>();
    const post = vi.fn((_ctx, next) => next());
    seams.on('tools/pre-execute', () => {
      entered.resolve();
      return late.promise;
    });
    seams.on('tools/post-execute', post);
    const controller = new AbortController();
    const pending = tools.execute(
      { name: 'echo', arguments: '{"text":"x"}' },
      { seams, signal: controller.signal },
    );
    await entered.promise;
    controller.abort();
    const result = await pending;
    late.resolve({ kind: 'allow' });
    expect(post).not.toHaveBeenCalled();
    expect(result.isError && result.error.code).toBe('ABORTED_BEFORE_DISPATCH');
  });

  it('T13 (d) a body that never settles is ABORTED with note "did not stop" after cancelGraceMs', async () => {
    vi.useFakeTimers();
    const { controller, box } = await startStuckCall(createFixture());
    await vi.advanceTimersByTimeAsync(60_000);
    expect(box.result).toBeUndefined();
    controller.abort();
    await vi.advanceTimersByTimeAsync(999);
    expect(box.result).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(box.result).toEqual({
      isError: true,
      error: { code: 'ABORTED', message: 'Tool call aborted', note: 'did not stop' },
      content: [{ type: 'text', text: 'Error: Tool call aborted' }],
    });
  });

  it('a body cut off by the grace is still reviewed, for one more grace: a review that hangs is then abandoned', async () => {
    vi.useFakeTimers();
    const fixture = createFixture();
    const reviewed: ToolResult[] = [];
    fixture.seams.on('tools/post-execute', ({ result }) => {
      reviewed.push(result);
      return new Promise(() => {});
    });
    const { controller, box } = await startStuckCall(fixture);
    controller.abort();
    await vi.advanceTimersByTimeAsync(1_000);
    // The grace ran out: the body did not stop, and post-execute reviews that.
    expect(reviewed.map((result) => result.isError && result.error.note)).toEqual(['did not stop']);
    await vi.advanceTimersByTimeAsync(999);
    expect(box.result).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(box.result).toEqual({
      isError: true,
      error: { code: 'ABORTED', message: 'Tool call aborted', note: 'did not stop' },
      content: [{ type: 'text', text: 'Error: Tool call aborted' }],
    });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a review that answers within its one more grace leaves no timer behind', async () => {
    vi.useFakeTimers();
    const fixture = createFixture();
    const answer = deferred<undefined>();
    fixture.seams.on('tools/post-execute', (_ctx, next) => answer.promise.then(() => next()));
    const { controller, box } = await startStuckCall(fixture);
    controller.abort();
    await vi.advanceTimersByTimeAsync(1_000);
    // The body did not stop; its review started with one more grace of its own, then answers at once.
    answer.resolve(undefined);
    await vi.advanceTimersByTimeAsync(0);
    expect(box.result).toMatchObject({ isError: true, error: { code: 'ABORTED', note: 'did not stop' } });
    // That grace's timer went with the call: nothing keeps the process up for the other 1,000 ms.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a cancel during post-execute abandons it: the success becomes ABORTED; finalize and tools/result still run', async () => {
    const { tools, seams } = createFixture();
    const finalize = vi.fn(() => undefined);
    tools.register(
      defineTool({
        name: 'f',
        description: 'x',
        parameters: z.object({}),
        execute: (_args, exec) => {
          exec.deferContext(textContext('deferred'));
          return 'secret';
        },
        finalizeContent: finalize,
      }),
    );
    const reviewing = deferred();
    const observed: ToolResult[] = [];
    seams.on('tools/post-execute', () => {
      reviewing.resolve();
      return new Promise(() => {});
    });
    seams.on('tools/result', ({ result }) => void observed.push(result));
    const controller = new AbortController();
    const pending = tools.execute({ name: 'f', arguments: '{}' }, { seams, signal: controller.signal });
    await reviewing.promise;
    controller.abort();
    const result = await pending;
    expect(finalize).toHaveBeenCalledTimes(1);
    expect(observed).toEqual([result]);
    expect(result).toEqual({
      isError: true,
      error: { code: 'ABORTED', message: 'Tool call aborted' },
      content: [{ type: 'text', text: 'Error: Tool call aborted' }],
      additionalContexts: [textContext('deferred')],
    });
  });

  it('an approval answered "cancelled" because the call was aborted is ABORTED_BEFORE_DISPATCH', async () => {
    const { tools, seams } = createFixture();
    const asked = deferred();
    seams.on('tools/pre-execute', () => ({ kind: 'ask' }));
    const controller = new AbortController();
    const pending = tools.execute(
      { name: 'echo', arguments: '{"text":"x"}' },
      {
        seams,
        signal: controller.signal,
        approval: {
          request: ({ signal }) => {
            asked.resolve();
            return new Promise((resolve) => signal.addEventListener('abort', () => resolve('cancelled')));
          },
        },
      },
    );
    await asked.promise;
    controller.abort();
    const result = await pending;
    expect(result.isError && result.error.code).toBe('ABORTED_BEFORE_DISPATCH');
  });

  it('an approval answered "cancelled" while the call is live is a denial saying so', async () => {
    const { tools, seams } = createFixture();
    seams.on('tools/pre-execute', () => ({ kind: 'ask' }));
    const result = await tools.execute(
      { name: 'echo', arguments: '{"text":"x"}' },
      { seams, approval: { request: async () => 'cancelled' } },
    );
    expect(result.isError && result.error).toEqual({
      code: 'DENIED',
      message: 'Approval for tool "echo" was cancelled',
    });
  });
});
