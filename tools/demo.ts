import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from './defineTool.js';
import { MAX_EDIT_BYTES, openConfined, readCapped, rewrite } from './demoFiles.js';
import { runShell } from './demoShell.js';
import type { ToolDefinition } from './types.js';

export interface DemoToolsOptions {
  /** The scratch directory Read, Write and Edit are confined to, and Bash's working directory. */
  root: string;
  /** Bash's default timeout (default 30 s). */
  bashTimeoutMs?: number;
}

/**
 * The demo toolset: Bash, Read, Write, Edit. Read runs in parallel; Bash, Write and Edit are exclusive.
 *
 * What is confined: the paths Read, Write and Edit are given. A path resolving outside `root`
 * (also through a symlinked directory), a final symlink that does not resolve inside `root`, a
 * file with more than one hard link, and anything that is not a regular file (FIFO, device,
 * socket, directory — refused without blocking) are tool errors. Read shows at most 256 KiB;
 * Bash keeps the last 64 KiB of stdout and stderr.
 *
 * What is NOT confined: **Bash is not a sandbox.** It runs `sh -c` with this process's user,
 * environment, files and network, starting in `root`; the model can read, write or delete
 * anything that user can. Bash only guarantees that it ends: a default timeout (30 s), and the
 * command's process group and the descendants it can find are killed when the shell exits, on
 * timeout and on cancel. The path checks are also not proof against another process swapping
 * path components between the check and the open. Run the demo in a throwaway container or VM.
 * @example for (const tool of createDemoTools({ root: '/tmp/scratch' })) tools.register(tool);
 */
export function createDemoTools(options: DemoToolsOptions): ToolDefinition[] {
  const root = path.resolve(options.root);
  const bashTimeoutMs = options.bashTimeoutMs ?? 30_000;

  const bash = defineTool({
    name: 'Bash',
    description: `Run a shell command (sh -c) starting in the scratch directory ${root} (not a sandbox). Returns exit code, stdout and stderr (last 64 KiB each); background processes are killed when the command exits.`,
    parameters: z.object({
      command: z.string().min(1),
      timeoutMs: z.number().int().positive().max(120_000).optional(),
    }),
    execute: async ({ command, timeoutMs }, exec) => {
      await mkdir(root, { recursive: true });
      const outcome = await runShell(command, {
        cwd: root,
        timeoutMs: timeoutMs ?? bashTimeoutMs,
        signal: exec.signal,
      });
      return { ...outcome };
    },
    concurrency: 'exclusive',
  });

  const read = defineTool({
    name: 'Read',
    description: 'Read a UTF-8 text file inside the scratch directory (at most the first 256 KiB).',
    parameters: z.object({ path: z.string().min(1) }),
    execute: async ({ path: rawPath }) => {
      const { handle } = await openConfined(root, rawPath, 'read');
      try {
        return await readCapped(handle);
      } finally {
        await handle.close();
      }
    },
    concurrency: 'parallel',
  });

  const write = defineTool({
    name: 'Write',
    description: 'Create or overwrite a UTF-8 text file inside the scratch directory.',
    parameters: z.object({ path: z.string().min(1), content: z.string() }),
    execute: async ({ path: rawPath, content }) => {
      const { handle, relative } = await openConfined(root, rawPath, 'write');
      try {
        await rewrite(handle, content);
      } finally {
        await handle.close();
      }
      return `Wrote ${Buffer.byteLength(content)} bytes to ${relative}`;
    },
    concurrency: 'exclusive',
  });

  const edit = defineTool({
    name: 'Edit',
    description: 'Replace exactly one occurrence of `old` with `new` in a file inside the scratch directory.',
    parameters: z.object({ path: z.string().min(1), old: z.string().min(1), new: z.string() }),
    execute: async ({ path: rawPath, old, new: replacement }) => {
      const { handle } = await openConfined(root, rawPath, 'edit');
      try {
        const { size } = await handle.stat();
        if (size > MAX_EDIT_BYTES)
          throw new Error(`File ${rawPath} is ${size} bytes; Edit handles at most ${MAX_EDIT_BYTES}`);
        const text = await handle.readFile('utf8');
        const count = text.split(old).length - 1;
        if (count !== 1)
          throw new Error(`Expected \`old\` to occur exactly once in ${rawPath}, found ${count}`);
        await rewrite(
          handle,
          text.replace(old, () => replacement),
        );
      } finally {
        await handle.close();
      }
      return `Edited ${rawPath}`;
    },
    concurrency: 'exclusive',
  });

  return [bash, read, write, edit];
}
