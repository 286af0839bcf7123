import { mkdtemp, readFile, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../../machines/standalone.js';
import { createSeams } from '../../../seams/index.js';
import { createDemoTools } from '../../../tools/index.js';
import type { ToolRegistry } from '../../../tools/types.js';
import { createRecordingLogger } from './fixtures.js';

describe('createDemoTools', () => {
  let root: string;
  let tools: ToolRegistry;
  const seams = createSeams({ logger: createRecordingLogger() });
  const run = (name: string, args: unknown, signal?: AbortSignal) =>
    tools.execute(
      { name, arguments: JSON.stringify(args) },
      { seams, ...(signal ? { signal } : {}), cancelGraceMs: 2_000 },
    );

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'seamchart-demo-'));
    tools = createToolRegistry();
    for (const tool of createDemoTools({ root })) tools.register(tool);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('Write, Read and Edit work inside the scratch directory; Read is parallel, the others exclusive', async () => {
    expect(await run('Write', { file_path: 'notes/a.txt', content: 'hello world' })).toMatchObject({
      isError: false,
    });
    expect(
      await run('Edit', { file_path: 'notes/a.txt', old_string: 'world', new_string: 'there' }),
    ).toMatchObject({
      isError: false,
    });
    expect(await run('Read', { file_path: 'notes/a.txt' })).toMatchObject({
      isError: false,
      value: 'hello there',
    });
    expect(await readFile(path.join(root, 'notes/a.txt'), 'utf8')).toBe('hello there');
    expect(
      Object.fromEntries(['Bash', 'Read', 'Write', 'Edit'].map((n) => [n, tools.get(n)?.concurrency])),
    ).toEqual({
      Bash: 'exclusive',
      Read: 'parallel',
      Write: 'exclusive',
      Edit: 'exclusive',
    });
  });

  it('a path outside the root, also through a symlink, is a tool error', async () => {
    const outside = await run('Read', { file_path: '../../etc/passwd' });
    expect(outside.isError && outside.error.code).toBe('TOOL_FAILED');
    expect(outside.isError && outside.error.message).toContain('is outside the scratch directory');
    await symlink(tmpdir(), path.join(root, 'escape'));
    const viaLink = await run('Write', { file_path: 'escape/x.txt', content: 'no' });
    expect(viaLink.isError && viaLink.error.message).toContain('is outside the scratch directory');
  });

  it('Bash runs in the root and reports exit code and output', async () => {
    const result = await run('Bash', { command: 'pwd; echo oops >&2; exit 3' });
    expect(result.isError).toBe(false);
    const value = (result as unknown as { value: { exitCode: number; stdout: string; stderr: string } })
      .value;
    expect(value.exitCode).toBe(3);
    expect(await realpath(value.stdout.trim())).toBe(await realpath(root));
    expect(value.stderr).toBe('oops\n');
  });

  it('an abort kills the whole Bash process group and the call ends ABORTED', async () => {
    const controller = new AbortController();
    const pending = run('Bash', { command: 'sleep 30 | cat; echo never' }, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    controller.abort();
    const result = await pending;
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(result.isError && result.error.code).toBe('ABORTED');
    expect(result.isError && result.error.note).toBeUndefined();
  });
});
