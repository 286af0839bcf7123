import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { ToolResult } from '../../../kernel/index.js';
import { defineTool, plugins } from '../../../tools/index.js';
import { createFixture, deferred, textContext } from './fixtures.js';

describe('built-in plugins', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('T14 plugins.timeout turns a slow body into TOOL_TIMEOUT and aborts the body signal', async () => {
    vi.useFakeTimers();
    const { tools, seams } = createFixture();
    let bodySignal: AbortSignal | undefined;
    tools.register(
      defineTool({
        name: 'slow',
        description: 'x',
        parameters: z.object({}),
        timeoutMs: 100,
        // Cooperative: stops as soon as its signal aborts.
        execute: (_args, exec) =>
          new Promise<string>((_resolve, reject) => {
            bodySignal = exec.signal;
            exec.signal.addEventListener('abort', () => reject(new Error('stopped')));
          }),
      }),
    );
    seams.use(plugins.timeout());
    let result: ToolResult | undefined;
    void tools.execute({ name: 'slow', arguments: '{}' }, { seams }).then((r) => {
      result = r;
    });
    await vi.advanceTimersByTimeAsync(99);
    expect(result).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(bodySignal?.aborted).toBe(true);
    expect(result).toMatchInlineSnapshot(`
      {
        "content": [
          {
            "text": "Error: Tool "slow" timed out after 100 ms",
            "type": "text",
          },
        ],
        "error": {
          "code": "TOOL_TIMEOUT",
          "message": "Tool "slow" timed out after 100 ms",
        },
        "isError": true,
      }
    `);
  });

  it('T14 a body ignoring its signal still yields TOOL_TIMEOUT after timeoutMs + cancelGraceMs', async () => {
    vi.useFakeTimers();
    const { tools, seams } = createFixture();
    tools.register(
      defineTool({
        name: 'deaf',
        description: 'x',
        parameters: z.object({}),
        execute: () => new Promise<string>(() => {}),
      }),
    );
    seams.use(plugins.timeout({ defaultMs: 100 }));
    let result: ToolResult | undefined;
    void tools.execute({ name: 'deaf', arguments: '{}' }, { seams, cancelGraceMs: 50 }).then((r) => {
      result = r;
    });
    await vi.advanceTimersByTimeAsync(149);
    expect(result).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(result?.isError && result.error).toEqual({
      code: 'TOOL_TIMEOUT',
      message: 'Tool "deaf" timed out after 100 ms',
      note: 'did not stop',
    });
  });

  it('T14 plugins.retry re-runs a failing body; the second success stands and the failed attempt contexts are dropped', async () => {
    const { tools, seams } = createFixture();
    let attempts = 0;
    tools.register(
      defineTool({
        name: 'flaky',
        description: 'x',
        parameters: z.object({}),
        execute: (_args, exec) => {
          attempts += 1;
          exec.deferContext(textContext(`attempt ${attempts}`));
          if (attempts === 1) throw new Error('transient');
          return 'second time lucky';
        },
      }),
    );
    seams.use(plugins.retry({ attempts: 3 }));
    const result = await tools.execute({ name: 'flaky', arguments: '{}' }, { seams });
    expect(attempts).toBe(2);
    expect(result).toEqual({
      isError: false,
      value: 'second time lucky',
      content: [{ type: 'text', text: 'second time lucky' }],
      additionalContexts: [textContext('attempt 2')],
    });
  });

  it('plugins.retry does not retry what its `on` rejects, and stops after `attempts`', async () => {
    const { tools, seams } = createFixture();
    const body = vi.fn(() => {
      throw new Error('always');
    });
    tools.register(defineTool({ name: 'bad', description: 'x', parameters: z.object({}), execute: body }));
    seams.use(plugins.retry({ attempts: 3 }));
    const result = await tools.execute({ name: 'bad', arguments: '{}' }, { seams });
    expect(body).toHaveBeenCalledTimes(3);
    expect(result.isError && result.error.code).toBe('TOOL_FAILED');
    const invalid = await tools.execute({ name: 'echo', arguments: '{}' }, { seams });
    expect(invalid.isError && invalid.error.code).toBe('INVALID_ARGS');
  });

  it('plugins.metrics counts calls and durations per tool and per seam as a plain object', async () => {
    const { tools, seams } = createFixture();
    const metrics = plugins.metrics();
    const dispose = seams.use(metrics);
    await tools.execute({ name: 'echo', arguments: '{"text":"a"}' }, { seams });
    await tools.execute({ name: 'echo', arguments: '{}' }, { seams });
    const snapshot = metrics.snapshot();
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
    expect(snapshot.tools.echo).toMatchObject({ calls: 2, errors: 1, codes: { INVALID_ARGS: 1 } });
    expect(snapshot.tools.echo?.executeMs).toBeGreaterThanOrEqual(0);
    expect(snapshot.seams['tools/pre-execute']).toMatchObject({ calls: 2, failures: 0 });
    expect(snapshot.seams['tools/execute']).toMatchObject({ calls: 2 });
    expect(snapshot.seams['tools/post-execute']).toMatchObject({ calls: 2 });
    dispose();
    expect(seams.listeners('tools/execute')).toEqual([]);
  });

  it('bad plugin options throw a TypeError naming the option', () => {
    expect(() => plugins.retry({ attempts: 0 })).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the \`attempts\` option of plugins.retry() to be a positive integer, got \`0\` (number)]`,
    );
    expect(() => plugins.timeout({ defaultMs: -1 })).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the \`defaultMs\` option of plugins.timeout() to be a positive finite number, got \`-1\` (number)]`,
    );
  });

  it('a timeout does not fire for a body that finishes in time', async () => {
    const { tools, seams } = createFixture();
    const done = deferred<string>();
    tools.register(
      defineTool({
        name: 'ok',
        description: 'x',
        parameters: z.object({}),
        timeoutMs: 1_000,
        execute: () => done.promise,
      }),
    );
    seams.use(plugins.timeout());
    const pending = tools.execute({ name: 'ok', arguments: '{}' }, { seams });
    done.resolve('in time');
    expect(await pending).toMatchObject({ isError: false, value: 'in time' });
  });
});
