import { homedir } from 'node:os';
import path from 'node:path';
import { HookConfigError } from './errors.js';
import {
  bashSubcommands,
  callPath,
  EDIT_TOOLS,
  type PermissionBehavior,
  type PermissionCall,
  type PermissionRule,
  PermissionRuleSyntaxError,
  type PermissionScope,
  type PermissionSource,
  parsePermissionRule,
  READ_TOOLS,
  readRuleCoversEdit,
  sourceOf,
} from './permissionRules.js';

export type {
  PermissionBehavior,
  PermissionCall,
  PermissionRule,
  PermissionScope,
  PermissionSource,
} from './permissionRules.js';

/** Claude Code's permission modes (`auto` is not offered: it needs Anthropic's classifier). */
export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** The permissions of several settings files, merged. */
export interface PermissionSet {
  /** Every rule of every file, in precedence order (highest first) within each behavior. */
  readonly rules: readonly PermissionRule[];
  /** `defaultMode` of the highest-precedence file that sets one (else `default`). */
  readonly defaultMode: PermissionMode;
  /** The file `defaultMode` came from. */
  readonly defaultModeFile?: string;
  /** Rules Claude Code would skip, modes it would not take, one line each (for the capability report). */
  readonly notes: readonly string[];
}

/** The permissions block of one settings file. */
export interface PermissionLayer {
  readonly source: PermissionSource;
  readonly rules: readonly PermissionRule[];
  readonly defaultMode?: PermissionMode;
  readonly notes: readonly string[];
}

/** What `decidePermission` answers for one call. */
export interface PermissionDecision {
  readonly behavior: PermissionBehavior;
  /** The rule that decided, when one did (else the mode did). */
  readonly rule?: PermissionRule;
  readonly mode: PermissionMode;
  /** One line for the model and the log: what decided and why. */
  readonly reason: string;
}

// Lower first: a later scope outranks an earlier one for defaultMode (Claude Code's settings precedence).
export const SCOPE_PRECEDENCE: readonly PermissionScope[] = ['user', 'project', 'local', 'flag', 'inline'];

function modeOf(value: unknown): PermissionMode | 'auto' | undefined {
  if (value === 'manual') return 'default';
  if (value === 'auto') return 'auto';
  return (PERMISSION_MODES as readonly unknown[]).includes(value) ? (value as PermissionMode) : undefined;
}

/**
 * Reads the `permissions` block of one parsed settings file (`allow`, `ask`, `deny`, `defaultMode`).
 * A rule that is not a rule, a list that is not a list of strings or an unknown mode is a
 * `HookConfigError` naming the file, the JSON path and the rule.
 * @param settings the parsed settings file
 * @param source the file, its scope and anchor (see `sourceOf`)
 */
export function readPermissionLayer(settings: unknown, source: PermissionSource): PermissionLayer {
  const block =
    settings !== null && typeof settings === 'object' && !Array.isArray(settings)
      ? (settings as Record<string, unknown>).permissions
      : undefined;
  if (block === undefined) return { source, rules: [], notes: [] };
  const fail = (at: string, detail: string): never => {
    throw new HookConfigError('HOOK_CONFIG_INVALID', source.file, at, detail);
  };
  if (block === null || typeof block !== 'object' || Array.isArray(block))
    fail('permissions', 'must be an object with allow, ask, deny and defaultMode');
  const fields = block as Record<string, unknown>;
  const rules: PermissionRule[] = [];
  const notes: string[] = [];
  for (const behavior of ['deny', 'ask', 'allow'] as const) {
    const list = fields[behavior];
    if (list === undefined) continue;
    if (!Array.isArray(list)) fail(`permissions.${behavior}`, 'must be an array of permission rules');
    for (const [index, text] of (list as unknown[]).entries()) {
      const at = `permissions.${behavior}[${index}]`;
      if (typeof text !== 'string') fail(at, 'must be a string such as "Bash(npm test:*)"');
      try {
        const rule = parsePermissionRule(text as string, behavior, source, at);
        if (rule.ignored !== undefined)
          notes.push(`${behavior} rule ${JSON.stringify(text)} is skipped: ${rule.ignored}`);
        rules.push(rule);
      } catch (error) {
        if (!(error instanceof PermissionRuleSyntaxError)) throw error;
        fail(at, `${JSON.stringify(text)} ${error.message}`);
      }
    }
  }
  let defaultMode: PermissionMode | undefined;
  if (fields.defaultMode !== undefined) {
    const mode = modeOf(fields.defaultMode);
    if (mode === undefined)
      fail(
        'permissions.defaultMode',
        `must be one of ${[...PERMISSION_MODES, 'manual', 'auto'].join(', ')}, got ${JSON.stringify(fields.defaultMode)}`,
      );
    if (mode === 'auto')
      notes.push(
        `defaultMode "auto" (${source.file}) needs Anthropic's classifier: the session starts in default`,
      );
    // Claude Code refuses a repository's own bypass: only user, flag and inline settings may start there.
    else if (mode === 'bypassPermissions' && (source.scope === 'project' || source.scope === 'local'))
      notes.push(
        `defaultMode "bypassPermissions" in ${source.file} does not take effect (project settings cannot set it)`,
      );
    else defaultMode = mode;
  }
  return { source, rules, ...(defaultMode === undefined ? {} : { defaultMode }), notes };
}

/**
 * Merges the permissions of several files: rules add up (deny is checked before ask before allow,
 * whatever file each came from); `defaultMode` comes from the highest-precedence file that sets
 * one: flag (`--claude-settings`) > local > project > user.
 * @param layers the files' blocks, in any order
 */
export function mergePermissions(layers: readonly PermissionLayer[]): PermissionSet {
  const ranked = [...layers].sort(
    (a, b) => SCOPE_PRECEDENCE.indexOf(b.source.scope) - SCOPE_PRECEDENCE.indexOf(a.source.scope),
  );
  const withMode = ranked.find((layer) => layer.defaultMode !== undefined);
  return {
    rules: ranked.flatMap((layer) => layer.rules),
    defaultMode: withMode?.defaultMode ?? 'default',
    ...(withMode === undefined ? {} : { defaultModeFile: withMode.source.file }),
    notes: ranked.flatMap((layer) => layer.notes),
  };
}

/**
 * Reads the permissions of settings given as parsed objects with their files, and merges them.
 * @param files parsed settings with the path each was read from (`'<inline>'` for objects)
 * @param home the user's home (for scope detection and `~/` rules)
 */
export function loadPermissionSet(
  files: readonly { readonly file: string; readonly settings: unknown; readonly scope?: PermissionScope }[],
  home: string = homedir(),
): PermissionSet {
  return mergePermissions(
    files.map(({ file, settings, scope }) => readPermissionLayer(settings, sourceOf(file, home, scope))),
  );
}

// Commands Claude Code runs without a prompt in every mode (read-only; flags that write or exec excluded).
const READ_ONLY_COMMANDS = new Set([
  'ls',
  'cat',
  'echo',
  'pwd',
  'head',
  'tail',
  'grep',
  'rg',
  'wc',
  'which',
  'diff',
  'stat',
  'du',
  'cd',
  'file',
  'tree',
  'true',
  'false',
  'whoami',
  'date',
  'printf',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'uname',
  'env',
  'printenv',
  'id',
  'type',
  'less',
  'more',
  'cut',
  'tr',
  'uniq',
  'nl',
  'sort',
  'test',
  '[',
]);
const READ_ONLY_GIT = new Set([
  'status',
  'log',
  'diff',
  'show',
  'branch',
  'rev-parse',
  'ls-files',
  'blame',
  'remote',
  'describe',
  'tag',
]);
// Wrappers Claude Code strips before matching (`timeout 30 npm test` is `npm test`).
const WRAPPERS = new Set(['timeout', 'time', 'nice', 'nohup', 'stdbuf', 'command', 'builtin', 'noglob']);
// Leading assignments an allow rule may look past; deny and ask rules look past any.
const SAFE_ASSIGNMENTS = new Set([
  'NODE_ENV',
  'RUST_BACKTRACE',
  'RUST_LOG',
  'PYTHONUNBUFFERED',
  'PYTHONDONTWRITEBYTECODE',
  'CI',
  'DEBUG',
  'LANG',
  'LC_ALL',
  'TZ',
  'NO_COLOR',
  'FORCE_COLOR',
  'GOOS',
  'GOARCH',
]);
// Filesystem commands acceptEdits runs without a prompt when their paths stay in the working directory.
const FILESYSTEM_COMMANDS = new Set(['mkdir', 'touch', 'mv', 'cp', 'rm', 'rmdir', 'ln', 'chmod']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** One subcommand's words with wrappers stripped; `safeOnly` keeps it when a non-safe assignment leads. */
function stripWrappers(words: readonly string[], safeOnly: boolean): string[] | undefined {
  let rest = [...words];
  while (rest.length > 0 && ASSIGNMENT.test(rest[0] as string)) {
    const name = (rest[0] as string).split('=')[0] as string;
    if (safeOnly && !SAFE_ASSIGNMENTS.has(name)) return undefined;
    rest = rest.slice(1);
  }
  for (;;) {
    const head = rest[0];
    if (head === undefined) return rest;
    if (head === 'xargs' && rest[1] !== undefined && !rest[1].startsWith('-')) {
      rest = rest.slice(1);
      continue;
    }
    if (!WRAPPERS.has(head) || (head === 'command' && rest[1] === '-v')) return rest;
    rest = rest.slice(1);
    // Drop the wrapper's own options and, for timeout/nice, its number.
    while (rest[0]?.startsWith('-')) {
      const option = rest[0];
      rest = rest.slice(1);
      if ((option === '-n' || option === '-s' || option === '-k') && rest[0] !== undefined)
        rest = rest.slice(1);
    }
    if (head === 'timeout' && rest[0] !== undefined && /^\d/.test(rest[0])) rest = rest.slice(1);
  }
}

/** Whether a subcommand writes through an output redirection (`> out.txt`; `/dev/null` does not count). */
function writesByRedirect(words: readonly string[]): boolean {
  return words.some((word, i) => {
    const match = /^(?:\d*|&)>>?(.*)$/.exec(word);
    if (match === null) return false;
    const target = match[1] === '' ? words[i + 1] : match[1];
    return target !== '/dev/null' && !/^&\d$/.test(target ?? '');
  });
}

function isReadOnly(words: readonly string[]): boolean {
  const [program, sub] = words;
  if (program === undefined) return true;
  if (writesByRedirect(words)) return false;
  if (program === 'git') return sub !== undefined && READ_ONLY_GIT.has(sub);
  if (program === 'find') return !words.some((word) => /^-(exec|execdir|delete|ok|fprint)/.test(word));
  if (program === 'sort') return !words.some((word) => word === '-o' || word.startsWith('--output'));
  return READ_ONLY_COMMANDS.has(program);
}

function insideAny(file: string, dirs: readonly string[]): boolean {
  return dirs.some((dir) => {
    const relative = path.relative(dir, file);
    return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
  });
}

/** What a tool is, for the mode's default: a read, an edit, a shell command, or anything else. */
export type ToolClass = 'read' | 'edit' | 'shell' | 'other';

/**
 * The class of a tool by its Claude Code name, or its ACP kind for other tools.
 * @param tool the tool's name
 * @param kind the tool's `kind` (`read`, `search`, `edit`…), when it has one
 */
export function toolClass(tool: string, kind?: string): ToolClass {
  if (tool === 'Bash') return 'shell';
  if (READ_TOOLS.includes(tool)) return 'read';
  if (EDIT_TOOLS.includes(tool)) return 'edit';
  if (kind === 'read' || kind === 'search' || kind === 'think') return 'read';
  if (kind === 'edit' || kind === 'delete' || kind === 'move') return 'edit';
  return 'other';
}

/** The call `decidePermission` judges: the tool call, plus what the mode needs to know. */
export interface PermissionRequest extends PermissionCall {
  /** The tool's `kind`, for tools whose name Claude Code does not know. */
  readonly kind?: string;
  /** Directories reads and acceptEdits edits may touch without a prompt (default: the cwd). */
  readonly workingDirs?: readonly string[];
  /** The user's home, for `~/` rules (default: `os.homedir()`). */
  readonly home?: string;
}

function firstRule(
  rules: readonly PermissionRule[],
  behavior: PermissionBehavior,
  test: (rule: PermissionRule) => boolean,
): PermissionRule | undefined {
  return rules.find((rule) => rule.behavior === behavior && rule.ignored === undefined && test(rule));
}

/** A deny or ask rule matches a Bash call when it matches **any** subcommand (or the whole unparsed text). */
function bashRestrictionMatches(rule: PermissionRule, call: PermissionCall, home: string): boolean {
  if (!rule.namesTool('Bash')) return false;
  if (rule.matchesCommand === undefined) return rule.matches(call, home);
  const { raw, words } = bashSubcommands(call.input);
  if (words === undefined) return rule.matchesCommand(raw.trim());
  return words.some((subcommand) => {
    const stripped = stripWrappers(subcommand, false) ?? subcommand;
    return (
      rule.matchesCommand?.(stripped.join(' ')) === true ||
      rule.matchesCommand?.(subcommand.join(' ')) === true
    );
  });
}

/** Bash allow: every subcommand must be read-only or matched by an allow rule (after safe wrappers). */
function bashAllowed(
  rules: readonly PermissionRule[],
  call: PermissionCall,
): { allowed: boolean; rule?: PermissionRule; readOnly: boolean; words?: string[][] } {
  const { words } = bashSubcommands(call.input);
  if (words === undefined) return { allowed: false, readOnly: false };
  let decidingRule: PermissionRule | undefined;
  let allReadOnly = true;
  for (const subcommand of words) {
    const stripped = stripWrappers(subcommand, true);
    if (stripped === undefined) return { allowed: false, readOnly: false, words };
    if (isReadOnly(stripped)) continue;
    allReadOnly = false;
    const rule = firstRule(rules, 'allow', (candidate) =>
      !candidate.namesTool('Bash')
        ? false
        : candidate.matchesCommand === undefined
          ? true
          : candidate.matchesCommand(stripped.join(' ')),
    );
    if (rule === undefined) return { allowed: false, readOnly: false, words };
    decidingRule ??= rule;
  }
  return {
    allowed: true,
    ...(decidingRule === undefined ? {} : { rule: decidingRule }),
    readOnly: allReadOnly,
    words,
  };
}

function describeRule(rule: PermissionRule): string {
  return `permission rule ${JSON.stringify(rule.text)} (${rule.behavior}, ${rule.source.file})`;
}

/** The mode's answer for a call no rule decided. */
function modeDefault(
  request: PermissionRequest,
  mode: PermissionMode,
  bashReadOnly: boolean,
  bashWords: string[][] | undefined,
): { behavior: PermissionBehavior; why: string } {
  if (mode === 'bypassPermissions') return { behavior: 'allow', why: 'permission mode bypassPermissions' };
  const cls = toolClass(request.tool, request.kind);
  const dirs = request.workingDirs ?? [request.cwd];
  const file = callPath(request);
  if (cls === 'read') {
    if (file === undefined || insideAny(file, dirs))
      return { behavior: 'allow', why: `reads are allowed (permission mode ${mode})` };
  } else if (cls === 'shell') {
    if (bashReadOnly) return { behavior: 'allow', why: 'a read-only command' };
    const fsOnly =
      mode === 'acceptEdits' &&
      bashWords !== undefined &&
      bashWords.every((words) => {
        const stripped = stripWrappers(words, true);
        if (stripped === undefined || stripped[0] === undefined) return false;
        if (isReadOnly(stripped)) return true;
        if (!FILESYSTEM_COMMANDS.has(stripped[0])) return false;
        return stripped
          .slice(1)
          .filter((word) => !word.startsWith('-'))
          .every((word) => insideAny(path.resolve(request.cwd, word), dirs));
      });
    if (fsOnly)
      return {
        behavior: 'allow',
        why: 'a filesystem command inside the working directory (permission mode acceptEdits)',
      };
  } else if (cls === 'edit') {
    if (mode === 'plan') return { behavior: 'deny', why: `plan mode: ${request.tool} would edit files` };
    if (mode === 'acceptEdits' && file !== undefined && insideAny(file, dirs))
      return { behavior: 'allow', why: 'an edit inside the working directory (permission mode acceptEdits)' };
  }
  if (mode === 'dontAsk')
    return { behavior: 'deny', why: `${request.tool} is not pre-approved (permission mode dontAsk)` };
  return { behavior: 'ask', why: `${request.tool} needs approval (permission mode ${mode})` };
}

/**
 * Decides one call as Claude Code would: deny rules first, then ask rules, then allow rules (the
 * first match in that order wins, whichever file a rule came from); a call no rule decides gets
 * its mode's answer (reads and read-only commands run; edits ask, except in acceptEdits; plan
 * denies edits; dontAsk denies what would ask; bypassPermissions allows). Ask rules ask in every
 * mode (dontAsk: deny); deny rules deny in every mode.
 * @param set the merged permissions
 * @param request the call (tool, input, cwd; kind and working directories for the mode)
 * @param mode the session's mode (default: the set's `defaultMode`)
 * @example
 * const set = loadPermissionSet([{ file: '.claude/settings.json', settings: { permissions: { deny: ['Bash(rm *)'] } } }]);
 * decidePermission(set, { tool: 'Bash', input: { command: 'cd x && rm -rf y' }, cwd: '/repo' }).behavior; // 'deny'
 */
export function decidePermission(
  set: PermissionSet,
  request: PermissionRequest,
  mode: PermissionMode = set.defaultMode,
): PermissionDecision {
  const home = request.home ?? homedir();
  const rules = set.rules;
  const restricts = (rule: PermissionRule): boolean =>
    request.tool === 'Bash'
      ? bashRestrictionMatches(rule, request, home)
      : rule.matches(request, home) || readRuleCoversEdit(rule, request, home);
  const denied = firstRule(rules, 'deny', restricts);
  if (denied !== undefined)
    return { behavior: 'deny', rule: denied, mode, reason: `denied by ${describeRule(denied)}` };
  const asked = firstRule(rules, 'ask', restricts);
  if (asked !== undefined) {
    if (mode === 'dontAsk')
      return {
        behavior: 'deny',
        rule: asked,
        mode,
        reason: `${describeRule(asked)} asks, and permission mode dontAsk never asks`,
      };
    return { behavior: 'ask', rule: asked, mode, reason: `${describeRule(asked)} asks for approval` };
  }
  let bash: ReturnType<typeof bashAllowed> = { allowed: false, readOnly: false };
  if (request.tool === 'Bash') {
    bash = bashAllowed(rules, request);
    if (bash.allowed && bash.rule !== undefined)
      return { behavior: 'allow', rule: bash.rule, mode, reason: `allowed by ${describeRule(bash.rule)}` };
  } else {
    const allowed = firstRule(rules, 'allow', (rule) => rule.matches(request, home));
    if (allowed !== undefined)
      return { behavior: 'allow', rule: allowed, mode, reason: `allowed by ${describeRule(allowed)}` };
  }
  const fallback = modeDefault(request, mode, bash.readOnly, bash.words);
  return { behavior: fallback.behavior, mode, reason: fallback.why };
}

/** Whether a mode name is one `decidePermission` takes (`manual` is `default`). */
export function parsePermissionMode(value: string): PermissionMode | undefined {
  const mode = modeOf(value);
  return mode === 'auto' ? undefined : mode;
}
