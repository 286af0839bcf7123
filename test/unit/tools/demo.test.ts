import { execFileSync } from 'node:child_process';
import { link, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../../machines/toolCall/createToolRegistry.js';
import { createSeams } from '../../../seams/index.js';
import { createDemoTools } from '../../../tools/index.js';
import type { ToolRegistry } from '../../../tools/types.js';
import { isGone } from '../../bridges/harness.js';
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

  it('Glob and Grep refuse a path that is a symlinked directory pointing outside the root', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'seamchart-outside-'));
    try {
      await writeFile(path.join(outside, 'secret.txt'), 'TOKEN=secret');
      await symlink(outside, path.join(root, 'linked'));
      await writeFile(path.join(root, 'mine.txt'), 'TOKEN=mine');
      for (const [name, args] of [
        ['Glob', { pattern: '**/*.txt', path: 'linked' }],
        ['Grep', { pattern: 'TOKEN', path: 'linked' }],
      ] as const) {
        const result = await run(name, args);
        expect(result.isError && result.error.message).toContain('is outside the scratch directory');
      }
      // The root itself still lists its own files and not the linked directory's.
      const own = await run('Glob', { pattern: '**/*.txt' });
      expect(own).toMatchObject({ isError: false });
      expect(JSON.stringify(own)).toContain('mine.txt');
      expect(JSON.stringify(own)).not.toContain('secret.txt');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
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

  const messageOf = (result: Awaited<ReturnType<typeof run>>): string | false =>
    result.isError && result.error.message;
  const shellOutcomeOf = (result: Awaited<ReturnType<typeof run>>) =>
    (result as unknown as { value: { exitCode: number; stdout: string; timedOut: boolean; notes: string[] } })
      .value;

  it('R03 Read, Write and Edit refuse a FIFO and a socket without blocking, also eight Reads at once', async () => {
    execFileSync('mkfifo', [path.join(root, 'pipe')]);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(root, 'sock'), resolve));
    try {
      const started = performance.now();
      const results = await Promise.all([
        ...Array.from({ length: 8 }, () => run('Read', { file_path: 'pipe' })),
        run('Write', { file_path: 'pipe', content: 'x' }),
        run('Edit', { file_path: 'pipe', old_string: 'a', new_string: 'b' }),
        run('Read', { file_path: 'sock' }),
        run('Read', { file_path: '.' }),
      ]);
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(results.map(messageOf)).toEqual([
        ...Array.from(
          { length: 8 },
          () => 'Path "pipe" is not a regular file (a FIFO); the demo tools only open regular files',
        ),
        'Path "pipe" is not a regular file; the demo tools only open regular files',
        'Path "pipe" is not a regular file (a FIFO); the demo tools only open regular files',
        'Path "sock" is not a regular file; the demo tools only open regular files',
        'Path "." is not a regular file (a directory); the demo tools only open regular files',
      ]);
      // The thread pool is free: ordinary file work still completes.
      expect(await run('Write', { file_path: 'after.txt', content: 'ok' })).toMatchObject({ isError: false });
    } finally {
      server.close();
    }
  });

  it('R03 Write through a dangling symlink to outside is refused and creates nothing outside', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'seamchart-outside-'));
    try {
      await symlink(path.join(outside, 'planted.txt'), path.join(root, 'dangling'));
      const result = await run('Write', { file_path: 'dangling', content: 'pwned' });
      expect(messageOf(result)).toBe(
        'Path "dangling" is a symbolic link that does not resolve inside the scratch directory; refused',
      );
      await expect(readFile(path.join(outside, 'planted.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
      // A dangling link as a directory component does not get through either.
      await symlink(path.join(outside, 'dir'), path.join(root, 'dirlink'));
      const nested = await run('Write', { file_path: 'dirlink/x.txt', content: 'pwned' });
      expect(nested.isError).toBe(true);
      await expect(readFile(path.join(outside, 'dir', 'x.txt'), 'utf8')).rejects.toThrow(/ENOENT/);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('R03 Read, Edit and Write refuse a hard link to a file outside the root and leave it unchanged', async () => {
    const outside = await mkdtemp(path.join(tmpdir(), 'seamchart-outside-'));
    try {
      const secret = path.join(outside, 'secret.txt');
      await writeFile(secret, 'top secret');
      await link(secret, path.join(root, 'hard.txt'));
      const results = await Promise.all([
        run('Read', { file_path: 'hard.txt' }),
        run('Edit', { file_path: 'hard.txt', old_string: 'top', new_string: 'no' }),
      ]);
      results.push(await run('Write', { file_path: 'hard.txt', content: 'overwritten' }));
      expect(results.map(messageOf)).toEqual(
        Array.from(
          { length: 3 },
          () =>
            'Path "hard.txt" has 2 hard links; refused because another name for it may be outside the scratch directory',
        ),
      );
      expect(await readFile(secret, 'utf8')).toBe('top secret');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('R03 Read shows the first 256 KiB of a large file and says what it cut', async () => {
    await writeFile(path.join(root, 'big.txt'), 'a'.repeat(300 * 1024));
    const result = await run('Read', { file_path: 'big.txt' });
    const text = (result as unknown as { value: string }).value;
    expect(text.startsWith('a'.repeat(256 * 1024))).toBe(true);
    expect(text.slice(256 * 1024)).toBe(
      `\n[truncated: showing the first ${256 * 1024} of ${300 * 1024} bytes]`,
    );
  });

  it('R03 the docs say plainly that Bash is not a sandbox', async () => {
    const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain('**Bash is not a sandbox**');
    expect(tools.get('Bash')?.description).toContain('(not a sandbox)');
  });

  it('R02 Bash returns when the shell exits although background children keep stdout open, and kills them', async () => {
    const started = performance.now();
    const result = await run('Bash', { command: 'setsid sleep 60 & echo $!; sleep 60 & echo $!; echo done' });
    expect(performance.now() - started).toBeLessThan(3_000);
    const value = shellOutcomeOf(result);
    expect(value.exitCode).toBe(0);
    expect(value.notes).toEqual([
      'background processes kept the output open after the command exited; killed',
    ]);
    const pids = value.stdout.trim().split('\n').slice(0, 2).map(Number);
    expect(value.stdout.trim().split('\n')[2]).toBe('done');
    expect(pids.filter((pid) => !isGone(pid))).toEqual([]);
  });

  it('R02 a cancelled Bash kills the descendants that left its process group', async () => {
    const controller = new AbortController();
    const marker = path.join(root, 'pid');
    const pending = run(
      'Bash',
      { command: `setsid sleep 60 & echo $! > ${marker}; sleep 60` },
      controller.signal,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    controller.abort();
    const result = await pending;
    expect(result.isError && result.error.code).toBe('ABORTED');
    const escaped = Number(await readFile(marker, 'utf8'));
    expect(escaped).toBeGreaterThan(0);
    expect(isGone(escaped)).toBe(true);
  });

  it('Bash has a timeout: a command running past it is killed and reported as timed out', async () => {
    const quick = createToolRegistry();
    for (const tool of createDemoTools({ root, bashTimeoutMs: 300 })) quick.register(tool);
    const result = await quick.execute(
      { name: 'Bash', arguments: JSON.stringify({ command: 'sleep 60' }) },
      { seams },
    );
    expect(shellOutcomeOf(result as never)).toMatchObject({ timedOut: true, exitCode: null });
  });
});
