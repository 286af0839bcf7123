import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from './defineTool.js';
import { runShell } from './demoShell.js';
import type { ToolDefinition } from './types.js';

export interface DemoToolsOptions {
  /** The scratch directory every tool is confined to. */
  root: string;
  /** Bash's default timeout (default 30 s). */
  bashTimeoutMs?: number;
}

/**
 * The demo toolset: Bash, Read, Write, Edit, confined to `root` (a path outside it is a tool error).
 * Read runs in parallel; Bash, Write and Edit are exclusive.
 * @example for (const tool of createDemoTools({ root: '/tmp/scratch' })) tools.register(tool);
 */
export function createDemoTools(options: DemoToolsOptions): ToolDefinition[] {
  const root = path.resolve(options.root);
  const bashTimeoutMs = options.bashTimeoutMs ?? 30_000;
  const resolveInside = (rawPath: string): Promise<string> => confine(root, rawPath);

  const bash = defineTool({
    name: 'Bash',
    description: `Run a shell command (sh -c) in the scratch directory ${root}. Returns exit code, stdout and stderr.`,
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
    description: 'Read a UTF-8 text file inside the scratch directory.',
    parameters: z.object({ path: z.string().min(1) }),
    execute: async ({ path: rawPath }) => readFile(await resolveInside(rawPath), 'utf8'),
    concurrency: 'parallel',
  });

  const write = defineTool({
    name: 'Write',
    description: 'Create or overwrite a UTF-8 text file inside the scratch directory.',
    parameters: z.object({ path: z.string().min(1), content: z.string() }),
    execute: async ({ path: rawPath, content }) => {
      const file = await resolveInside(rawPath);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content, 'utf8');
      return `Wrote ${Buffer.byteLength(content)} bytes to ${path.relative(root, file)}`;
    },
    concurrency: 'exclusive',
  });

  const edit = defineTool({
    name: 'Edit',
    description: 'Replace exactly one occurrence of `old` with `new` in a file inside the scratch directory.',
    parameters: z.object({ path: z.string().min(1), old: z.string().min(1), new: z.string() }),
    execute: async ({ path: rawPath, old, new: replacement }) => {
      const file = await resolveInside(rawPath);
      const text = await readFile(file, 'utf8');
      const count = text.split(old).length - 1;
      if (count !== 1)
        throw new Error(`Expected \`old\` to occur exactly once in ${rawPath}, found ${count}`);
      await writeFile(
        file,
        text.replace(old, () => replacement),
        'utf8',
      );
      return `Edited ${path.relative(root, file)}`;
    },
    concurrency: 'exclusive',
  });

  return [bash, read, write, edit];
}

// Resolves symlinks of the deepest existing ancestor, so a link pointing outside cannot escape.
async function confine(root: string, rawPath: string): Promise<string> {
  const realRoot = await realpath(root).catch(() => root);
  const candidate = path.resolve(realRoot, rawPath);
  let existing = candidate;
  let rest = '';
  for (;;) {
    try {
      existing = await realpath(existing);
      break;
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) break;
      rest = path.join(path.basename(existing), rest);
      existing = parent;
    }
  }
  const resolved = path.join(existing, rest);
  const relative = path.relative(realRoot, resolved);
  if (relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new Error(`Path "${rawPath}" is outside the scratch directory ${root}`);
  }
  return resolved;
}
