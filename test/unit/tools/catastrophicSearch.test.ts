// Y05: a catastrophic Grep or Glob pattern ends within its timeout as a tool error; a cancel takes effect at once.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../../machines/toolCall/createToolRegistry.js';
import { createSeams } from '../../../seams/index.js';
import { createDemoTools } from '../../../tools/index.js';
import type { ToolRegistry } from '../../../tools/types.js';
import { createRecordingLogger } from './fixtures.js';

// Each takes far longer than any test timeout with a backtracking engine (2^40 and 60^12 steps).
const catastrophic = {
  Grep: { pattern: '^(a+)+$' },
  Glob: { pattern: `**/${'a*'.repeat(12)}b` },
} as const;

describe('Y05 catastrophic search patterns', () => {
  let root: string;
  let tools: ToolRegistry;
  const seams = createSeams({ logger: createRecordingLogger() });
  const run = (name: string, args: unknown, signal?: AbortSignal) =>
    tools.execute(
      { name, arguments: JSON.stringify(args) },
      { seams, ...(signal ? { signal } : {}), cancelGraceMs: 2_000 },
    );

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'seamchart-y05-'));
    await writeFile(path.join(root, 'bait.txt'), `${'a'.repeat(40)}!\n`);
    await writeFile(path.join(root, 'a'.repeat(60)), 'x');
    tools = createToolRegistry();
    for (const tool of createDemoTools({ root, searchTimeoutMs: 500 })) tools.register(tool);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  for (const name of ['Grep', 'Glob'] as const) {
    it(`Y05 ${name} with a catastrophic pattern ends within its timeout as a tool error; timers keep firing`, async () => {
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 20);
      const started = Date.now();
      const result = await run(name, catastrophic[name]);
      clearInterval(ticker);
      expect(result).toMatchObject({
        isError: true,
        error: { message: expect.stringContaining('did not finish within 500 ms') },
      });
      // Generous for a loaded machine: the point is that it ends, not how fast.
      expect(Date.now() - started).toBeLessThan(10_000);
      // The event loop was never blocked: the ticker ran while the pattern was stuck.
      expect(ticks).toBeGreaterThan(5);
    });

    it(`Y05 a cancel during ${name}'s catastrophic pattern takes effect within 1 s`, async () => {
      tools = createToolRegistry();
      for (const tool of createDemoTools({ root, searchTimeoutMs: 60_000 })) tools.register(tool);
      const controller = new AbortController();
      const running = run(name, catastrophic[name], controller.signal);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const cancelled = Date.now();
      controller.abort();
      const result = await running;
      expect(Date.now() - cancelled).toBeLessThan(1_000);
      expect(result).toMatchObject({ isError: true });
    });
  }

  it('Y05 ordinary patterns still work: Grep lines and a glob filter, Glob matches', async () => {
    await writeFile(path.join(root, 'notes.md'), 'one\nTODO two\nthree TODO\n');
    expect((await run('Grep', { pattern: 'TODO', glob: '*.md' })).content).toEqual([
      { type: 'text', text: 'notes.md:2:TODO two\nnotes.md:3:three TODO' },
    ]);
    expect((await run('Glob', { pattern: '*.md' })).content).toEqual([{ type: 'text', text: 'notes.md' }]);
    expect(await run('Grep', { pattern: '(' })).toMatchObject({ isError: true });
  });
});
