// tools.md § Built-in plugins: timeout, retry and metrics are ordinary plugins.

import { createSeams, createToolRegistry, type HookContext, plugins } from 'seamchart';
import { describe, expect, it } from 'vitest';
import { also, ctx, errorOf, quiet, texts, tool } from './pipeline.js';

describe('tools.md § Built-in plugins', () => {
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
