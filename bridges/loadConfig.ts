import { homedir } from 'node:os';
import path from 'node:path';
import { describeReceived } from '../kernel/index.js';
import { type ConditionDirs, ConditionSyntaxError, compileCondition } from './condition.js';
import { describeFirstIssue, type HandlerEntry, hooksFileSchema } from './configSchema.js';
import { HookConfigError } from './errors.js';
import { compileMatcher, MatcherSyntaxError } from './matcher.js';
import { readConfigFile } from './readConfigFile.js';
import {
  type Dialect,
  type HookEventName,
  type HookHandler,
  type HookTable,
  isSupportedHookEvent,
  type SkippedHandler,
} from './types.js';

/** One hooks config: a file path, or an already-parsed object. */
export type HookSource = string | Record<string, unknown>;

/** A config that brings its own placeholders and environment (a plugin's hooks file). */
export interface ScopedHookSource {
  readonly source: HookSource;
  /** Added to (and winning over) the table-wide substitutions. */
  readonly substitutions: Readonly<Record<string, string>>;
  /** Variables the handlers of this source get. */
  readonly env: Readonly<Record<string, string>>;
  readonly plugin?: string;
}

/** Dialect-specific loading choices. */
export interface LoadHookTableOptions {
  readonly dialect: Dialect;
  /** Placeholder → value, substituted into every command (Claude `${CLAUDE_PROJECT_DIR}`…). */
  readonly substitutions?: Readonly<Record<string, string>>;
  /** Placeholders that must be resolved: one left in a command or argument is a load error. */
  readonly requiredPlaceholders?: readonly string[];
  /** Where `if` path rules are anchored (Claude). */
  readonly conditionDirs?: ConditionDirs;
  /** The other dialect's handler fields this one ignores, with why (Codex: Claude's `if` and `args`). */
  readonly ignoredFields?: Readonly<Record<string, string>>;
}

// Handler fields each dialect acts on; anything else is reported as not honored.
const KNOWN_FIELDS: Record<Dialect, readonly string[]> = {
  'claude-code': [
    'type',
    'command',
    'args',
    'if',
    'onFailure',
    'timeout',
    'async',
    'asyncRewake',
    'rewakeMessage',
    'rewakeSummary',
  ],
  codex: ['type', 'command', 'timeout', 'timeoutSec', 'async'],
};
// Known fields that only change what a person sees, never what the hook does.
const DISPLAY_FIELDS = ['statusMessage'];
const GROUP_FIELDS = ['matcher', 'hooks'];

const DEFAULT_TIMEOUT_S = 600;
// UserPromptSubmit holds the user's prompt, so it gets a shorter default.
const PROMPT_TIMEOUT_S = 30;
// On these events the hook always fires: a matcher is ignored (and not validated).
const MATCHERLESS: readonly string[] = ['UserPromptSubmit', 'Stop'];

async function readSource(source: HookSource): Promise<{ file: string; raw: unknown }> {
  if (typeof source !== 'string') return { file: '<inline>', raw: source };
  const file = path.resolve(source);
  return { file, raw: await readConfigFile(file) };
}

function substitute(command: string, substitutions: Readonly<Record<string, string>>): string {
  let result = command;
  for (const [placeholder, value] of Object.entries(substitutions))
    result = result.replaceAll(placeholder, value);
  return result;
}

function isScoped(source: HookSource | ScopedHookSource): source is ScopedHookSource {
  return typeof source === 'object' && 'source' in source && 'env' in source && 'substitutions' in source;
}

/** What the bridge does not act on in one entry and its group: as the client does (`notes`) or not (`unhonored`). */
function unhandledFields(
  dialect: Dialect,
  rules: { readonly ignoredFields: Readonly<Record<string, string>> },
  entry: Record<string, unknown>,
  group: Record<string, unknown>,
): { unhonored: string[]; notes: string[] } {
  const unhonored: string[] = [];
  const notes: string[] = [];
  for (const key of Object.keys(entry)) {
    if (KNOWN_FIELDS[dialect].includes(key)) continue;
    const ignored = rules.ignoredFields[key];
    if (ignored !== undefined) notes.push(`${key} ${ignored}`);
    else if (DISPLAY_FIELDS.includes(key)) notes.push(`${key} is not shown (display only)`);
    else if (key === 'once') unhonored.push('once is not honored: the hook runs on every matching event');
    else if (key === 'shell' && entry.shell === 'bash')
      unhonored.push('shell "bash": the command runs with sh -c');
    else unhonored.push(`field "${key}" is not known to the ${dialect} bridge and is ignored`);
  }
  for (const key of Object.keys(group)) {
    if (!GROUP_FIELDS.includes(key))
      unhonored.push(`group field "${key}" is not known to the ${dialect} bridge and is ignored`);
  }
  return { unhonored, notes };
}

function timeoutSeconds(entry: HandlerEntry, event: string): number {
  const explicit = entry.timeout ?? (entry as { timeoutSec?: number }).timeoutSec;
  return explicit ?? (event === 'UserPromptSubmit' ? PROMPT_TIMEOUT_S : DEFAULT_TIMEOUT_S);
}

/**
 * Reads, validates and merges hooks configs of one dialect (entries add up, in the order given).
 * A malformed file throws `HookConfigError` naming the file and the JSON path.
 * @param sources file paths or parsed config objects
 * @param options dialect and placeholder substitutions
 */
export async function loadHookTable(
  sources: readonly (HookSource | ScopedHookSource)[],
  options: LoadHookTableOptions,
): Promise<HookTable> {
  const { dialect } = options;
  const schema = hooksFileSchema(dialect);
  const handlers: HookHandler[] = [];
  const skipped: SkippedHandler[] = [];
  const unsupportedEvents: { event: string; file: string }[] = [];
  const groupCounters = new Map<string, number>();

  for (const given of sources) {
    const scoped: ScopedHookSource = isScoped(given) ? given : { source: given, substitutions: {}, env: {} };
    const { file, raw } = await readSource(scoped.source);
    const substitutions = { ...(options.substitutions ?? {}), ...scoped.substitutions };
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw new HookConfigError(
        'HOOK_CONFIG_INVALID',
        file,
        '',
        `must be an object, got ${describeReceived(raw)}`,
      );
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const { path: jsonPath, detail } = describeFirstIssue(parsed.error, raw);
      throw new HookConfigError('HOOK_CONFIG_INVALID', file, jsonPath, detail, parsed.error);
    }
    for (const [event, groups] of Object.entries(parsed.data.hooks ?? {})) {
      if (!isSupportedHookEvent(event)) {
        unsupportedEvents.push({ event, file });
        continue;
      }
      groups.forEach((group, localGroup) => {
        const groupIndex = groupCounters.get(event) ?? 0;
        groupCounters.set(event, groupIndex + 1);
        const matcher = MATCHERLESS.includes(event) ? undefined : group.matcher;
        let matches: (subject: string) => boolean;
        try {
          matches = compileMatcher(matcher, dialect);
        } catch (error) {
          if (!(error instanceof MatcherSyntaxError)) throw error;
          const at = `hooks.${event}[${localGroup}].matcher`;
          throw new HookConfigError('HOOK_CONFIG_INVALID', file, at, error.message, error);
        }
        group.hooks.forEach((entry, index) => {
          const id = `${dialect}:${event}:${groupIndex}:${index}`;
          const type = entry.type ?? 'command';
          if (type !== 'command') {
            skipped.push({ id, event, file, reason: `handler type "${type}" is not supported` });
          } else {
            const at = `hooks.${event}[${localGroup}].hooks[${index}]`;
            const handler = createHandler({
              id,
              event,
              matcher,
              matches,
              entry,
              file,
              at,
              substitutions,
              scoped,
              options,
              fields: unhandledFields(dialect, { ignoredFields: options.ignoredFields ?? {} }, entry, group),
            });
            const ignored = MATCHERLESS.includes(event) ? group.matcher : undefined;
            handlers.push(
              ignored === undefined || ignored === '' || ignored === '*'
                ? handler
                : Object.freeze({ ...handler, ignoredMatcher: ignored }),
            );
          }
        });
      });
    }
  }
  return Object.freeze({ dialect, handlers, skipped, unsupportedEvents });
}

interface HandlerParts {
  readonly id: string;
  readonly event: HookEventName;
  readonly matcher: string | undefined;
  readonly matches: (subject: string) => boolean;
  readonly entry: HandlerEntry;
  readonly file: string;
  /** The entry's JSON path, for load errors. */
  readonly at: string;
  readonly substitutions: Readonly<Record<string, string>>;
  readonly scoped: ScopedHookSource;
  readonly options: LoadHookTableOptions;
  readonly fields: { readonly unhonored: readonly string[]; readonly notes: readonly string[] };
}

function resolvePlaceholders(parts: HandlerParts, text: string, at: string): string {
  let value = substitute(text, parts.substitutions);
  for (const placeholder of parts.options.requiredPlaceholders ?? []) {
    // Exported by the user (a plugin run by hand): the shell would expand it, so it is set.
    const exported = process.env[placeholder.slice(2, -1)];
    if (exported !== undefined && exported !== '') value = value.replaceAll(placeholder, exported);
    if (value.includes(placeholder))
      throw new HookConfigError(
        'HOOK_CONFIG_INVALID',
        parts.file,
        at,
        `uses ${placeholder}, which is not set here (load the folder as a plugin, or pass the option that sets it)`,
      );
  }
  return value;
}

function compileIf(parts: HandlerParts, rule: string) {
  const dirs = parts.options.conditionDirs ?? { home: homedir() };
  try {
    return compileCondition(rule, dirs);
  } catch (error) {
    if (!(error instanceof ConditionSyntaxError)) throw error;
    throw new HookConfigError('HOOK_CONFIG_INVALID', parts.file, `${parts.at}.if`, error.message, error);
  }
}

function createHandler(parts: HandlerParts): HookHandler {
  const { entry, event, matcher, scoped } = parts;
  const claude = entry as {
    args?: string[];
    if?: string;
    onFailure?: 'continue' | 'block';
    asyncRewake?: boolean;
    rewakeMessage?: string;
    rewakeSummary?: string;
  };
  const background = claude.asyncRewake === true ? 'rewake' : entry.async === true ? 'async' : undefined;
  // Codex reads neither `args` nor `if` (they are reported, see `unhonoredFields`).
  const honors = (field: string): boolean => parts.options.ignoredFields?.[field] === undefined;
  const givenArgs = honors('args') ? claude.args : undefined;
  const givenIf = honors('if') ? claude.if : undefined;
  const command = resolvePlaceholders(parts, entry.command as string, `${parts.at}.command`);
  const args = givenArgs?.map((arg, i) => resolvePlaceholders(parts, arg, `${parts.at}.args[${i}]`));
  const unhonored = [...parts.fields.unhonored];
  const notes = [...parts.fields.notes];
  let condition: HookHandler['condition'];
  if (givenIf !== undefined) {
    condition = compileIf(parts, givenIf);
    if (!TOOL_EVENTS.includes(event))
      notes.push(`if ${JSON.stringify(givenIf)} on ${event} (an event without a tool): the hook never runs`);
  }
  if (claude.onFailure === 'block' && (event === 'Stop' || event === 'SessionStart'))
    notes.push(`onFailure "block" is ignored on ${event} (there is nothing to block)`);
  return Object.freeze({
    id: parts.id,
    event,
    ...(matcher === undefined || matcher === '' || matcher === '*' ? {} : { matcher }),
    matches: parts.matches,
    command,
    ...(args === undefined ? {} : { args: Object.freeze(args) }),
    dedupeKey: JSON.stringify([command, args ?? null, scoped.plugin ?? null, background ?? null]),
    ...(condition === undefined ? {} : { condition }),
    onFailure: claude.onFailure ?? 'continue',
    timeoutMs: Math.round(timeoutSeconds(entry, event) * 1000),
    file: parts.file,
    env: scoped.env,
    ...(scoped.plugin === undefined ? {} : { plugin: scoped.plugin }),
    unhonored: Object.freeze(unhonored),
    notes: Object.freeze(notes),
    ...(background === undefined ? {} : { background }),
    ...(background === 'rewake' && typeof claude.rewakeMessage === 'string'
      ? { rewakeMessage: claude.rewakeMessage }
      : {}),
    ...(background === 'rewake' && typeof claude.rewakeSummary === 'string'
      ? { rewakeSummary: claude.rewakeSummary }
      : {}),
  });
}

// Events whose payload names a tool, so an `if` rule has something to test.
const TOOL_EVENTS: readonly HookEventName[] = ['PreToolUse', 'PostToolUse', 'PermissionRequest'];
