import path from 'node:path';
import picomatch from 'picomatch';
import { splitSubcommands } from './shellSplit.js';
import type { HookCondition } from './types.js';

/** Thrown by `compileCondition` for a rule that is not `Tool` or `Tool(specifier)`. */
export class ConditionSyntaxError extends TypeError {
  readonly code = 'INVALID_CONDITION';
}

// Edit rules cover every tool that edits files, Read rules every tool that reads them (Claude Code).
const RULE_TOOLS: Record<string, readonly string[]> = {
  Edit: ['Edit', 'Write', 'MultiEdit', 'NotebookEdit'],
  Read: ['Read', 'Glob', 'Grep', 'LS'],
};

function field(input: unknown, ...names: string[]): string | undefined {
  if (input === null || typeof input !== 'object') return undefined;
  for (const name of names) {
    const value = (input as Record<string, unknown>)[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A Bash specifier as a test over one subcommand: `*` matches anything; a trailing ` *` that is
 * the only wildcard also matches the bare command (`git commit *` matches `git commit`); legacy
 * `prefix:*` is the same as `prefix *`.
 * @param spec the text between the parentheses of `Bash(…)`
 */
export function compileCommandPattern(spec: string): (subcommand: string) => boolean {
  const normalized = spec.trim().replace(/\s+/g, ' ');
  if (normalized.endsWith(':*')) {
    const prefix = normalized.slice(0, -2);
    return (command) => command === prefix || command.startsWith(`${prefix} `);
  }
  const optionalTail = normalized.endsWith(' *') && normalized.indexOf('*') === normalized.length - 1;
  const body = optionalTail ? normalized.slice(0, -2) : normalized;
  const source = body.split('*').map(escapeRegExp).join('.*');
  const regexp = new RegExp(`^${source}${optionalTail ? '(?: .*)?' : ''}$`, 's');
  return (command) => regexp.test(command);
}

/** A path specifier, gitignore-style: `//abs`, `~/home`, `/project-relative`, else relative to cwd. */
function compilePathPattern(spec: string, dirs: ConditionDirs, cwd: string): (file: string) => boolean {
  let base = cwd;
  let pattern = spec;
  if (spec.startsWith('//')) {
    base = '/';
    pattern = spec.slice(2);
  } else if (spec.startsWith('~/')) {
    base = dirs.home;
    pattern = spec.slice(2);
  } else if (spec.startsWith('/')) {
    base = dirs.projectDir ?? cwd;
    pattern = spec.slice(1);
  } else if (spec.startsWith('./')) {
    pattern = spec.slice(2);
  }
  // Like .gitignore: a pattern without a slash matches the name in any directory.
  const anywhere = !pattern.includes('/');
  const matches = picomatch(pattern, { dot: true, basename: anywhere });
  return (file) => {
    const relative = path.relative(base, path.resolve(cwd, file));
    if (relative.startsWith('..') || path.isAbsolute(relative))
      return anywhere && matches(path.basename(file));
    return matches(relative);
  };
}

/** Where relative rule paths are anchored (the cwd comes with each call). */
export interface ConditionDirs {
  /** `/path` rules; default: the call's cwd. */
  readonly projectDir?: string;
  readonly home: string;
}

/**
 * Compiles a hook's `if` (permission-rule syntax: `Bash(git commit *)`, `Write(*.env)`,
 * `Edit(src/**)`, `WebFetch(domain:example.com)`, or a bare tool name). A Bash rule runs the hook
 * when **any** subcommand matches; a command the bridge cannot split, or a tool whose input it does
 * not know how to read, runs the hook (a guard fails toward enforcement).
 * @param rule the condition as written
 * @param dirs where `/…` and `~/…` path rules are anchored
 */
export function compileCondition(rule: string, dirs: ConditionDirs): HookCondition {
  const match = /^\s*([A-Za-z0-9_\-.*]+)\s*(?:\(([\s\S]*)\))?\s*$/.exec(rule);
  if (match === null) throw new ConditionSyntaxError('must be a permission rule like "Bash(git commit *)"');
  const tool = match[1] as string;
  const spec = match[2];
  const tools = RULE_TOOLS[tool] ?? [tool];
  const toolMatches = (name: string): boolean =>
    tools.includes(name) || (tool.endsWith('*') && name.startsWith(tool.slice(0, -1)));
  if (spec === undefined || spec.trim() === '' || spec.trim() === '*')
    return { rule, test: (name) => toolMatches(name) };
  const trimmed = spec.trim();
  // Compiled on first use; the path pattern once per cwd (a bridge usually serves one).
  let commandPattern: ((command: string) => boolean) | undefined;
  const pathPatterns = new Map<string, (file: string) => boolean>();
  const pathPatternFor = (cwd: string): ((file: string) => boolean) => {
    let matches = pathPatterns.get(cwd);
    if (matches === undefined) {
      matches = compilePathPattern(trimmed, dirs, cwd);
      pathPatterns.set(cwd, matches);
    }
    return matches;
  };
  const test = (name: string, input: unknown, cwd: string): boolean => {
    if (!toolMatches(name)) return false;
    if (name === 'Bash') {
      const command = field(input, 'command');
      if (command === undefined) return true;
      const subcommands = splitSubcommands(command);
      if (subcommands === undefined) return true;
      commandPattern ??= compileCommandPattern(trimmed);
      const matches = commandPattern;
      return subcommands.some((words) => matches(words.join(' ')));
    }
    if (tool === 'WebFetch' && trimmed.startsWith('domain:')) {
      const url = field(input, 'url');
      if (url === undefined) return true;
      try {
        const host = new URL(url).hostname;
        const domain = trimmed.slice('domain:'.length);
        return host === domain || host.endsWith(`.${domain}`);
      } catch {
        return true;
      }
    }
    const file = field(input, 'file_path', 'notebook_path', 'path');
    // A read without a path (Grep over the cwd) is not about a file; any other tool fails toward running.
    if (file === undefined) return RULE_TOOLS.Read?.includes(name) !== true;
    return pathPatternFor(cwd)(file);
  };
  return { rule, test };
}
