import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describeFirstIssue, describeValue, type HandlerEntry, hooksFileSchema } from './configSchema.js';
import { HookConfigError } from './errors.js';
import { compileMatcher, MatcherSyntaxError } from './matcher.js';
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

/** Dialect-specific loading choices. */
export interface LoadHookTableOptions {
  readonly dialect: Dialect;
  /** Placeholder → value, substituted into every command (Claude `${CLAUDE_PROJECT_DIR}`…). */
  readonly substitutions?: Readonly<Record<string, string>>;
}

const DEFAULT_TIMEOUT_S = 600;
// UserPromptSubmit holds the user's prompt, so it gets a shorter default.
const PROMPT_TIMEOUT_S = 30;
// On these events the hook always fires: a matcher is ignored (and not validated).
const MATCHERLESS: readonly string[] = ['UserPromptSubmit', 'Stop'];

async function readSource(source: HookSource): Promise<{ file: string; raw: unknown }> {
  if (typeof source !== 'string') return { file: '<inline>', raw: source };
  const file = path.resolve(source);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new HookConfigError(
      'HOOK_CONFIG_UNREADABLE',
      file,
      '',
      `cannot be read: ${(error as Error).message}`,
      error,
    );
  }
  try {
    return { file, raw: JSON.parse(text) };
  } catch (error) {
    throw new HookConfigError(
      'HOOK_CONFIG_INVALID',
      file,
      '',
      `is not valid JSON: ${(error as Error).message}`,
      error,
    );
  }
}

function substitute(command: string, substitutions: Readonly<Record<string, string>>): string {
  let result = command;
  for (const [placeholder, value] of Object.entries(substitutions))
    result = result.replaceAll(placeholder, value);
  return result;
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
  sources: readonly HookSource[],
  options: LoadHookTableOptions,
): Promise<HookTable> {
  const { dialect } = options;
  const schema = hooksFileSchema(dialect);
  const handlers: HookHandler[] = [];
  const skipped: SkippedHandler[] = [];
  const unsupportedEvents: { event: string; file: string }[] = [];
  const groupCounters = new Map<string, number>();

  for (const source of sources) {
    const { file, raw } = await readSource(source);
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw new HookConfigError(
        'HOOK_CONFIG_INVALID',
        file,
        '',
        `must be an object, got ${describeValue(raw)}`,
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
          } else if (entry.async === true) {
            skipped.push({ id, event, file, reason: 'async hooks are not supported' });
          } else {
            const handler = createHandler(
              id,
              event,
              matcher,
              matches,
              entry,
              file,
              options.substitutions ?? {},
            );
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

function createHandler(
  id: string,
  event: HookEventName,
  matcher: string | undefined,
  matches: (subject: string) => boolean,
  entry: HandlerEntry,
  file: string,
  substitutions: Readonly<Record<string, string>>,
): HookHandler {
  return Object.freeze({
    id,
    event,
    ...(matcher === undefined || matcher === '' || matcher === '*' ? {} : { matcher }),
    matches,
    command: substitute(entry.command as string, substitutions),
    timeoutMs: Math.round(timeoutSeconds(entry, event) * 1000),
    file,
  });
}
