import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from './defineTool.js';
import { confine, MAX_EDIT_BYTES, openConfined, readCapped, realRootOf, rewrite } from './demoFiles.js';
import { runShell } from './demoShell.js';
import { withEnvFiles } from './envFiles.js';
import { DEFAULT_SEARCH_TIMEOUT_MS, PatternSearch } from './searchWorker.js';
import type { ToolDefinition } from './types.js';

export interface DemoToolsOptions {
  /** The scratch directory Read, Write and Edit are confined to, and Bash's working directory. */
  root: string;
  /** Bash's default timeout (default 30 s). */
  bashTimeoutMs?: number;
  /** How long Glob and Grep may search before the call fails (default 30 s); patterns run in a worker thread. */
  searchTimeoutMs?: number;
}

/**
 * The demo toolset, with Claude Code's tool names and input fields (`file_path`, `old_string`, …):
 * Bash, Read, Write, Edit, Glob, Grep. Read, Glob and Grep run in parallel; Bash, Write and Edit are
 * exclusive. Bash sources the agent's shell env files (`exec.env`, written by SessionStart hooks
 * through `CLAUDE_ENV_FILE`) before each command.
 *
 * What is confined: the paths Read, Write, Edit, Glob and Grep are given (Glob and Grep do not
 * follow symbolic links, and Grep reads each file as Read does). A path resolving outside `root`
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
  const searchTimeoutMs = options.searchTimeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS;

  const bash = defineTool({
    name: 'Bash',
    kind: 'execute',
    description: `Run a shell command (sh -c) starting in the scratch directory ${root} (not a sandbox). Returns exit code, stdout and stderr (last 64 KiB each); background processes are killed when the command exits.`,
    // Claude Code's Bash input: `timeout` in milliseconds (at most 10 minutes), `description` for people.
    parameters: z.object({
      command: z.string().min(1),
      timeout: z.number().int().positive().max(600_000).optional(),
      description: z.string().optional(),
    }),
    execute: async ({ command, timeout }, exec) => {
      await mkdir(root, { recursive: true });
      const outcome = await runShell(withEnvFiles(command, exec.env?.shellEnvFiles ?? []), {
        cwd: root,
        timeoutMs: timeout ?? bashTimeoutMs,
        signal: exec.signal,
        // TRACEPARENT and the like: what plugins give the processes of this call.
        ...(exec.env?.processEnvFor
          ? { env: exec.env.processEnvFor({ turn: exec.turn, callId: exec.callId }) }
          : {}),
      });
      return { ...outcome };
    },
    concurrency: 'exclusive',
  });

  const read = defineTool({
    name: 'Read',
    kind: 'read',
    description:
      'Read a UTF-8 text file inside the scratch directory (at most the first 256 KiB); `offset` (1-based line) and `limit` (lines) select part of it.',
    parameters: z.object({
      file_path: z.string().min(1),
      offset: z.number().int().positive().optional(),
      limit: z.number().int().positive().optional(),
    }),
    execute: async ({ file_path: rawPath, offset, limit }) => {
      const text = await readConfined(rawPath);
      if (offset === undefined && limit === undefined) return text;
      const start = (offset ?? 1) - 1;
      return text
        .split('\n')
        .slice(start, limit === undefined ? undefined : start + limit)
        .join('\n');
    },
    concurrency: 'parallel',
  });

  const write = defineTool({
    name: 'Write',
    kind: 'edit',
    description: 'Create or overwrite a UTF-8 text file inside the scratch directory.',
    parameters: z.object({ file_path: z.string().min(1), content: z.string() }),
    execute: async ({ file_path: rawPath, content }) => {
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
    kind: 'edit',
    description:
      'Replace `old_string` with `new_string` in a file inside the scratch directory: exactly one occurrence, or every one with `replace_all`.',
    parameters: z.object({
      file_path: z.string().min(1),
      old_string: z.string().min(1),
      new_string: z.string(),
      replace_all: z.boolean().optional(),
    }),
    execute: async ({ file_path: rawPath, old_string: old, new_string: replacement, replace_all }) => {
      const { handle } = await openConfined(root, rawPath, 'edit');
      try {
        const { size } = await handle.stat();
        if (size > MAX_EDIT_BYTES)
          throw new Error(`File ${rawPath} is ${size} bytes; Edit handles at most ${MAX_EDIT_BYTES}`);
        const text = await handle.readFile('utf8');
        const count = text.split(old).length - 1;
        if (count === 0 || (count > 1 && replace_all !== true))
          throw new Error(`Expected \`old_string\` to occur exactly once in ${rawPath}, found ${count}`);
        await rewrite(handle, text.split(old).join(replacement));
      } finally {
        await handle.close();
      }
      return `Edited ${rawPath}`;
    },
    concurrency: 'exclusive',
  });

  async function readConfined(rawPath: string): Promise<string> {
    const { handle } = await openConfined(root, rawPath, 'read');
    try {
      return await readCapped(handle);
    } finally {
      await handle.close();
    }
  }

  // Files under `dir` matching `pattern`, relative to the root, sorted; symbolic links are not followed.
  async function findFiles(
    search: PatternSearch,
    pattern: string,
    dir: string | undefined,
  ): Promise<string[]> {
    // The directory's real path: a symlinked directory pointing outside the root is refused.
    const base = await confine(root, dir ?? '.');
    const realRoot = await realRootOf(root);
    const found = await search.glob(pattern, base);
    return found
      .map((file) => path.relative(realRoot, path.join(base, file)))
      .filter((file) => !file.startsWith('..') && !path.isAbsolute(file))
      .sort();
  }

  // A user's pattern runs in a worker with a deadline: a catastrophic one fails the call instead of the process.
  async function withSearch<TResult>(
    what: string,
    signal: AbortSignal,
    run: (search: PatternSearch) => Promise<TResult>,
  ): Promise<TResult> {
    const search = new PatternSearch(what, { timeoutMs: searchTimeoutMs, signal });
    try {
      return await run(search);
    } finally {
      search.close();
    }
  }

  const globTool = defineTool({
    name: 'Glob',
    kind: 'search',
    description: 'List files matching a glob pattern (`**/*.ts`) inside the scratch directory, sorted.',
    parameters: z.object({ pattern: z.string().min(1), path: z.string().min(1).optional() }),
    execute: ({ pattern, path: dir }, exec) =>
      withSearch('Glob', exec.signal, async (search) => (await findFiles(search, pattern, dir)).join('\n')),
    concurrency: 'parallel',
  });

  const grep = defineTool({
    name: 'Grep',
    kind: 'search',
    description:
      'Search files inside the scratch directory for a regular expression; `glob` filters the files (`*.ts`). Returns `file:line:text` lines.',
    parameters: z.object({
      pattern: z.string().min(1),
      path: z.string().min(1).optional(),
      glob: z.string().min(1).optional(),
    }),
    execute: ({ pattern, path: dir, glob: filter }, exec) =>
      withSearch('Grep', exec.signal, async (search) => {
        await search.compile(pattern, filter);
        const lines: string[] = [];
        for (const file of await search.filter(await findFiles(search, '**/*', dir))) {
          if (lines.length >= MAX_GREP_LINES) break;
          // A file Read would refuse (a FIFO, a hard link from outside…) is skipped, not searched.
          const text = await readConfined(file).catch(() => undefined);
          if (text === undefined) continue;
          const split = text.split('\n');
          for (const index of await search.grep(text, MAX_GREP_LINES - lines.length))
            lines.push(`${file}:${index + 1}:${split[index]}`);
        }
        return lines.join('\n');
      }),
    concurrency: 'parallel',
  });

  return [bash, read, write, edit, globTool, grep];
}

const MAX_GREP_LINES = 500;
