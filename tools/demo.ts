import { mkdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { glob } from 'tinyglobby';
import { z } from 'zod';
import { defineTool } from './defineTool.js';
import { runShell } from './demoShell.js';
import { withEnvFiles } from './envFiles.js';
import type { ToolDefinition } from './types.js';

export interface DemoToolsOptions {
  /** The scratch directory every tool is confined to. */
  root: string;
  /** Bash's default timeout (default 30 s). */
  bashTimeoutMs?: number;
}

/**
 * The demo toolset with Claude Code's tool names and input fields: Bash, Read, Write, Edit, Glob, Grep,
 * confined to `root` (a path outside it is a tool error). Bash sources the agent's shell env files
 * (`exec.env`) before each command. Read, Glob and Grep run in parallel; Bash, Write and Edit are exclusive.
 * @example for (const tool of createDemoTools({ root: '/tmp/scratch' })) tools.register(tool);
 */
export function createDemoTools(options: DemoToolsOptions): ToolDefinition[] {
  const root = path.resolve(options.root);
  const bashTimeoutMs = options.bashTimeoutMs ?? 30_000;
  const resolveInside = (rawPath: string): Promise<string> => confine(root, rawPath);

  const bash = defineTool({
    name: 'Bash',
    description: `Run a shell command (sh -c) in the scratch directory ${root}. Returns exit code, stdout and stderr.`,
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
      });
      return { ...outcome };
    },
    concurrency: 'exclusive',
  });

  const read = defineTool({
    name: 'Read',
    description:
      'Read a UTF-8 text file inside the scratch directory; `offset` (1-based line) and `limit` (lines) select part of it.',
    parameters: z.object({
      file_path: z.string().min(1),
      offset: z.number().int().positive().optional(),
      limit: z.number().int().positive().optional(),
    }),
    execute: async ({ file_path: rawPath, offset, limit }) => {
      const text = await readFile(await resolveInside(rawPath), 'utf8');
      if (offset === undefined && limit === undefined) return text;
      const lines = text.split('\n');
      const start = (offset ?? 1) - 1;
      return lines.slice(start, limit === undefined ? undefined : start + limit).join('\n');
    },
    concurrency: 'parallel',
  });

  const write = defineTool({
    name: 'Write',
    description: 'Create or overwrite a UTF-8 text file inside the scratch directory.',
    parameters: z.object({ file_path: z.string().min(1), content: z.string() }),
    execute: async ({ file_path: rawPath, content }) => {
      const file = await resolveInside(rawPath);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content, 'utf8');
      return `Wrote ${Buffer.byteLength(content)} bytes to ${path.relative(root, file)}`;
    },
    concurrency: 'exclusive',
  });

  const edit = defineTool({
    name: 'Edit',
    description:
      'Replace `old_string` with `new_string` in a file inside the scratch directory: exactly one occurrence, or every one with `replace_all`.',
    parameters: z.object({
      file_path: z.string().min(1),
      old_string: z.string().min(1),
      new_string: z.string(),
      replace_all: z.boolean().optional(),
    }),
    execute: async ({ file_path: rawPath, old_string: old, new_string: replacement, replace_all }) => {
      const file = await resolveInside(rawPath);
      const text = await readFile(file, 'utf8');
      const count = text.split(old).length - 1;
      if (count === 0 || (count > 1 && replace_all !== true))
        throw new Error(`Expected \`old_string\` to occur exactly once in ${rawPath}, found ${count}`);
      await writeFile(file, text.split(old).join(replacement), 'utf8');
      return `Edited ${path.relative(root, file)}`;
    },
    concurrency: 'exclusive',
  });

  // Files under `dir` matching `pattern`, relative to the root, sorted; symlinks are not followed.
  const findFiles = async (pattern: string, dir: string | undefined): Promise<string[]> => {
    const base = await resolveInside(dir ?? '.');
    const found = await glob(pattern, { cwd: base, onlyFiles: true, followSymbolicLinks: false, dot: false });
    const inside = found
      .map((file) => path.relative(root, path.join(base, file)))
      .filter((file) => !file.startsWith('..') && !path.isAbsolute(file));
    return inside.sort();
  };

  const globTool = defineTool({
    name: 'Glob',
    description: 'List files matching a glob pattern (`**/*.ts`) inside the scratch directory, sorted.',
    parameters: z.object({ pattern: z.string().min(1), path: z.string().min(1).optional() }),
    execute: async ({ pattern, path: dir }) => (await findFiles(pattern, dir)).join('\n'),
    concurrency: 'parallel',
  });

  const grep = defineTool({
    name: 'Grep',
    description:
      'Search files inside the scratch directory for a regular expression; `glob` filters the files (`*.ts`). Returns `file:line:text` lines.',
    parameters: z.object({
      pattern: z.string().min(1),
      path: z.string().min(1).optional(),
      glob: z.string().min(1).optional(),
    }),
    execute: async ({ pattern, path: dir, glob: filter }) => {
      const regexp = new RegExp(pattern);
      const keep = filter === undefined ? () => true : picomatch(filter, { basename: true });
      const lines: string[] = [];
      for (const file of await findFiles('**/*', dir)) {
        if (!keep(file)) continue;
        const absolute = path.join(root, file);
        if ((await stat(absolute)).size > MAX_GREP_FILE_BYTES) continue;
        const text = await readFile(absolute, 'utf8');
        text.split('\n').forEach((line, index) => {
          if (lines.length < MAX_GREP_LINES && regexp.test(line)) lines.push(`${file}:${index + 1}:${line}`);
        });
      }
      return lines.join('\n');
    },
    concurrency: 'parallel',
  });

  return [bash, read, write, edit, globTool, grep];
}

const MAX_GREP_FILE_BYTES = 1024 * 1024;
const MAX_GREP_LINES = 500;

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
