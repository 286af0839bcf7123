import path from 'node:path';
import picomatch from 'picomatch';
import type { JsonValue } from '../kernel/index.js';
import { compileCommandPattern } from './condition.js';
import { splitSubcommands } from './shellSplit.js';

/** What a rule does when it matches a call. */
export type PermissionBehavior = 'allow' | 'ask' | 'deny';

/** Which settings file a rule came from: it decides precedence and where `/path` rules are anchored. */
export type PermissionScope = 'user' | 'project' | 'local' | 'flag' | 'inline';

/** Where a rule was written. */
export interface PermissionSource {
  readonly file: string;
  readonly scope: PermissionScope;
  /** Where `/path` rules of this file are anchored (project root, `~/.claude`, the file's folder). */
  readonly anchor: string;
}

/** The call a rule is tested against. */
export interface PermissionCall {
  /** The tool's name (`Bash`, `Edit`, `mcp__github__create_issue`). */
  readonly tool: string;
  /** The call's input (Claude Code's field names: `command`, `file_path`, `path`, `url`). */
  readonly input: JsonValue;
  /** The session's working directory: relative paths and `path` rules resolve against it. */
  readonly cwd: string;
}

/** One parsed rule of a `permissions` block. */
export interface PermissionRule {
  /** The rule as written (`Bash(npm test:*)`). */
  readonly text: string;
  readonly behavior: PermissionBehavior;
  readonly source: PermissionSource;
  /** The JSON path in its file (`permissions.deny[2]`). */
  readonly at: string;
  /** Whether the rule names this tool (before its specifier is looked at). */
  readonly namesTool: (tool: string) => boolean;
  /** Whether the rule matches one call; Bash rules test one subcommand at a time (see `matchesCommand`). */
  readonly matches: (call: PermissionCall, home: string) => boolean;
  /** Bash rules with a command pattern: the test of one subcommand (words joined by spaces). */
  readonly matchesCommand?: (subcommand: string) => boolean;
  /** Why Claude Code would never consult this rule (it is kept, reported, and never matches). */
  readonly ignored?: string;
}

/** A rule that is not `Tool` or `Tool(specifier)`. */
export class PermissionRuleSyntaxError extends TypeError {
  readonly code = 'INVALID_PERMISSION_RULE';
}

// Edit rules cover every tool that edits files, Read rules every tool that reads them (Claude Code).
export const EDIT_TOOLS: readonly string[] = ['Edit', 'Write', 'MultiEdit', 'NotebookEdit'];
export const READ_TOOLS: readonly string[] = ['Read', 'Glob', 'Grep', 'LS', 'NotebookRead'];
// Tools whose path rules Claude Code accepts but never consults (write `Edit(…)` / `Read(…)` instead).
const UNCONSULTED_PATH_TOOLS: Record<string, string> = {
  Write: 'Edit',
  MultiEdit: 'Edit',
  NotebookEdit: 'Edit',
  Glob: 'Read',
};
// Bash's own input fields besides `command`, matchable by deny/ask `Bash(field:value)` rules.
const BASH_PARAMETERS = ['timeout', 'description', 'run_in_background'];
// Each tool's primary field: `Tool(field:value)` cannot name it (a compound command would slip past).
const PRIMARY_FIELDS = ['command', 'file_path', 'path', 'notebook_path', 'url'];

function stringField(input: JsonValue, ...names: string[]): string | undefined {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return undefined;
  for (const name of names) {
    const value = (input as Record<string, JsonValue>)[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** The file a call touches (`file_path`, `notebook_path`, `path`), absolute; Grep/Glob without one read the cwd. */
export function callPath(call: PermissionCall): string | undefined {
  const file = stringField(call.input, 'file_path', 'notebook_path', 'path');
  if (file !== undefined) return path.resolve(call.cwd, file);
  return READ_TOOLS.includes(call.tool) && call.tool !== 'Read' ? call.cwd : undefined;
}

/** `Bash(…)`'s command, split into subcommands (`undefined`: a command the splitter does not model). */
export function bashSubcommands(input: JsonValue): { raw: string; words: string[][] | undefined } {
  const raw = stringField(input, 'command') ?? '';
  return { raw, words: splitSubcommands(raw, { keepAssignments: true }) };
}

/**
 * A path specifier, gitignore-style: `//abs`, `~/home`, `/anchored` (at the settings file's anchor),
 * else relative to the cwd; a bare name (`.env`) matches at any depth; for deny/ask rules a single
 * leading directory (`secrets/**`) matches that directory at any depth too.
 */
function compilePathRule(
  spec: string,
  behavior: PermissionBehavior,
  source: PermissionSource,
): (file: string, cwd: string, home: string) => boolean {
  let pattern = spec;
  let base: (cwd: string, home: string) => string = (cwd) => cwd;
  if (spec.startsWith('//')) {
    pattern = spec.slice(2);
    base = () => '/';
  } else if (spec.startsWith('~/')) {
    pattern = spec.slice(2);
    base = (_cwd, home) => home;
  } else if (spec.startsWith('/')) {
    pattern = spec.slice(1);
    base = () => source.anchor;
  } else if (spec.startsWith('./')) {
    pattern = spec.slice(2);
  }
  const anchored = spec.startsWith('/') || spec.startsWith('~/');
  const segments = pattern.split('/').filter((part) => part !== '');
  const bareName = !pattern.replace(/\/+$/, '').includes('/');
  // Like .gitignore: a name without a slash matches at any depth; deny/ask `dir/**` matches nested copies.
  const anyDepth =
    !anchored &&
    (bareName ||
      (behavior !== 'allow' && segments.length === 2 && segments[1] === '**' && segments[0] !== '**'));
  const glob = anyDepth && !pattern.startsWith('**/') ? `**/${pattern}` : pattern;
  const matches = picomatch(glob, { dot: true });
  return (file, cwd, home) => {
    const relative = path.relative(base(cwd, home), file);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return false;
    return matches(relative);
  };
}

/** A WebFetch `domain:` specifier: exact host, `*.example.com` (any subdomain), `*` (every host). */
function compileDomainRule(domain: string): (host: string) => boolean {
  const wanted = domain.toLowerCase().replace(/\.$/, '');
  if (wanted === '*') return () => true;
  if (wanted.startsWith('*.')) {
    const suffix = wanted.slice(1);
    return (host) => host.endsWith(suffix);
  }
  const parts = wanted.split('.');
  return (host) => {
    const hostParts = host.split('.');
    return (
      hostParts.length === parts.length && parts.every((part, i) => part === '*' || part === hostParts[i])
    );
  };
}

/** A glob over tool names (`mcp__*`, `mcp__github__get_*`): `*` is any run of characters. */
function toolGlob(pattern: string): (tool: string) => boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  const regexp = new RegExp(`^${source}$`);
  return (tool) => regexp.test(tool);
}

function compileToolName(
  tool: string,
  behavior: PermissionBehavior,
): { namesTool: (name: string) => boolean; ignored?: string } {
  if (tool.startsWith('mcp__')) {
    const [server, ...rest] = tool.slice('mcp__'.length).split('__');
    if (server === undefined || server === '' || server.includes('*')) {
      if (behavior === 'allow')
        return {
          namesTool: () => false,
          ignored: 'an allow rule may use * only after a literal mcp__<server>__ prefix: it approves nothing',
        };
      return { namesTool: toolGlob(tool) };
    }
    // `mcp__server` names every tool of that server.
    if (rest.length === 0) return { namesTool: (name) => name.startsWith(`mcp__${server}__`) };
    return { namesTool: toolGlob(tool) };
  }
  if (tool.includes('*')) {
    if (behavior === 'allow')
      return {
        namesTool: () => false,
        ignored: 'an allow rule may use * in the tool name only after mcp__<server>__: it approves nothing',
      };
    return { namesTool: toolGlob(tool) };
  }
  if (tool === 'Edit') return { namesTool: (name) => EDIT_TOOLS.includes(name) };
  if (tool === 'Read') return { namesTool: (name) => READ_TOOLS.includes(name) };
  return { namesTool: (name) => name === tool };
}

const RULE = /^([A-Za-z0-9_\-.*]+)(?:\(([\s\S]*)\))?$/;

/**
 * Parses one permission rule as Claude Code reads it: `Tool`, `Tool(specifier)` — a Bash command
 * pattern (`npm test:*`, `git commit *`), a gitignore path for Read/Edit (`./secrets/**`), a
 * WebFetch `domain:`, an MCP tool or server (`mcp__server__tool`, `mcp__server`), a deny/ask
 * `Tool(param:value)`. A rule Claude Code would skip is kept with `ignored` set (never matches).
 * @param text the rule as written
 * @param behavior the list it is in
 * @param source the file it came from
 * @param at its JSON path in that file
 * @throws PermissionRuleSyntaxError when the text is not a rule
 */
export function parsePermissionRule(
  text: string,
  behavior: PermissionBehavior,
  source: PermissionSource,
  at: string,
): PermissionRule {
  const match = RULE.exec(text.trim());
  if (match === null)
    throw new PermissionRuleSyntaxError(
      'is not a permission rule: expected Tool or Tool(specifier), e.g. "Bash(npm test:*)" or "Read(./secrets/**)"',
    );
  const tool = match[1] as string;
  const spec = match[2]?.trim();
  const name = compileToolName(tool, behavior);
  const base = { text, behavior, source, at, namesTool: name.namesTool };
  if (name.ignored !== undefined) return { ...base, matches: () => false, ignored: name.ignored };
  // `Tool`, `Tool()` and `Tool(*)` name every use of the tool.
  if (spec === undefined || spec === '' || spec === '*')
    return { ...base, matches: (call) => name.namesTool(call.tool) };
  if (tool.startsWith('mcp__'))
    return {
      ...base,
      matches: () => false,
      ignored: 'Claude Code skips an mcp__ rule with parentheses in a settings file',
    };
  const parameter = /^([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([\s\S]*)$/.exec(spec);
  const isParameterRule =
    parameter !== null &&
    tool !== 'WebFetch' &&
    !READ_TOOLS.includes(tool) &&
    !EDIT_TOOLS.includes(tool) &&
    (tool !== 'Bash' || BASH_PARAMETERS.includes(parameter[1] as string));
  if (isParameterRule) {
    const [, field, value] = parameter as unknown as [string, string, string];
    if (behavior === 'allow' || PRIMARY_FIELDS.includes(field))
      return {
        ...base,
        matches: () => false,
        ignored:
          behavior === 'allow'
            ? 'Tool(param:value) is a deny/ask rule only: as an allow rule it approves nothing'
            : `Tool(${field}:…) cannot name the tool's primary field: use the tool's own specifier`,
      };
    const wanted = toolGlob(value);
    return {
      ...base,
      matches: (call) => {
        if (!name.namesTool(call.tool)) return false;
        const input = call.input;
        if (input === null || typeof input !== 'object' || Array.isArray(input)) return false;
        const actual = (input as Record<string, JsonValue>)[field];
        if (actual === undefined || actual === null || typeof actual === 'object') return false;
        return wanted(String(actual));
      },
    };
  }
  if (tool === 'Bash') {
    const matchesCommand = compileCommandPattern(spec);
    return {
      ...base,
      matchesCommand,
      // Whole-command test; callers that decide Bash calls test subcommands (see `decidePermission`).
      matches: (call) => call.tool === 'Bash' && matchesCommand(bashSubcommands(call.input).raw),
    };
  }
  if (tool === 'WebFetch') {
    if (!spec.startsWith('domain:'))
      return { ...base, matches: () => false, ignored: 'WebFetch rules match by domain:<host>' };
    const host = compileDomainRule(spec.slice('domain:'.length).trim());
    return {
      ...base,
      matches: (call) => {
        if (call.tool !== 'WebFetch') return false;
        const url = stringField(call.input, 'url');
        if (url === undefined) return false;
        try {
          return host(new URL(url).hostname.toLowerCase().replace(/\.$/, ''));
        } catch {
          return false;
        }
      },
    };
  }
  const unconsulted = UNCONSULTED_PATH_TOOLS[tool];
  if (unconsulted !== undefined)
    return {
      ...base,
      matches: () => false,
      ignored: `Claude Code checks file paths against ${unconsulted}(…) rules only: write ${unconsulted}(${spec})`,
    };
  if (tool === 'Read' || tool === 'Edit') {
    const pathMatches = compilePathRule(spec, behavior, source);
    return {
      ...base,
      matches: (call, home) => {
        if (!name.namesTool(call.tool)) return false;
        const file = callPath(call);
        return file !== undefined && pathMatches(file, call.cwd, home);
      },
    };
  }
  // Any other tool with a specifier (Agent(Explore), Skill(deploy *)): a glob over its text input.
  const wanted = toolGlob(spec);
  return {
    ...base,
    matches: (call) => {
      if (!name.namesTool(call.tool)) return false;
      const input = call.input;
      if (input === null || typeof input !== 'object' || Array.isArray(input)) return false;
      return Object.values(input).some((value) => typeof value === 'string' && wanted(value));
    },
  };
}

// Path rules of `Read` also guard the files the edit tools would write (Claude Code: a Read deny blocks Edit/Write there).
export function readRuleCoversEdit(rule: PermissionRule, call: PermissionCall, home: string): boolean {
  if (!EDIT_TOOLS.includes(call.tool) || rule.behavior === 'allow') return false;
  if (!/^Read\(/.test(rule.text.trim())) return false;
  return rule.matches({ ...call, tool: 'Read' }, home);
}

/** Where a `/path` rule of a settings file is anchored, and which scope the file is, from its path. */
export function sourceOf(file: string, home: string, scope?: PermissionScope): PermissionSource {
  if (file === '<inline>') return { file, scope: scope ?? 'inline', anchor: process.cwd() };
  const dir = path.dirname(file);
  const inClaudeDir = path.basename(dir) === '.claude';
  const detected: PermissionScope =
    file === path.join(home, '.claude', 'settings.json')
      ? 'user'
      : inClaudeDir && path.basename(file) === 'settings.local.json'
        ? 'local'
        : inClaudeDir && path.basename(file) === 'settings.json'
          ? 'project'
          : 'flag';
  const chosen = scope ?? detected;
  const anchor =
    chosen === 'user' ? path.join(home, '.claude') : inClaudeDir ? path.dirname(dir) : path.dirname(file);
  return { file, scope: chosen, anchor };
}
