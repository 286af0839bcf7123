import { describeReceived } from '../kernel/index.js';
import type { HookSource } from './loadConfig.js';
import { failOption } from './options.js';

/** A config path, a parsed config object, or a list of them. */
export type HookSourceArgument = HookSource | readonly HookSource[];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function checkSource(factory: string, source: unknown): HookSource {
  if ((typeof source === 'string' && source !== '') || isPlainObject(source)) return source;
  throw new TypeError(
    `Expected ${factory}() to receive a config path or config object, got ${describeReceived(source)}`,
  );
}

/**
 * Accepts both call forms, `factory(pathOrConfig, options?)` and `factory({ <filesKey>: [...], ...options })`,
 * and returns the config sources in order plus the options.
 * @param factory the factory name, for error messages
 * @param first the first argument as given
 * @param second the second argument as given
 * @param filesKey `settingsFiles` (Claude) or `configFiles` (Codex)
 * @param optionKeys other keys that mark the options form
 */
export function splitSourceArgument(
  factory: string,
  first: unknown,
  second: unknown,
  filesKey: string,
  /** Other keys that mark the options form (`plugins`). */
  optionKeys: readonly string[] = [],
): { sources: HookSource[]; options: Record<string, unknown> } {
  if (second !== undefined && !isPlainObject(second)) {
    throw new TypeError(
      `Expected the options of ${factory}() to be an object, got ${describeReceived(second)}`,
    );
  }
  const optionsForm = isPlainObject(first) && [filesKey, ...optionKeys].some((key) => key in first);
  const options = { ...(optionsForm ? first : {}), ...(second ?? {}) };
  const files = options[filesKey];
  if (files !== undefined && (!Array.isArray(files) || files.some((f) => typeof f !== 'string' || f === '')))
    failOption(factory, filesKey, 'an array of file paths', files);
  const given = optionsForm || first === undefined ? [] : Array.isArray(first) ? first : [first];
  const sources = [...given.map((source) => checkSource(factory, source)), ...((files as string[]) ?? [])];
  return { sources, options };
}
