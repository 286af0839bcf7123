import { describeReceived } from '../kernel/index.js';
import { isSeamName, seamNames } from './names.js';
import type { ListenerOptions, SeamName, SeamPlugin } from './types.js';

/** Throws a `TypeError` unless `rawName` is a seam name (or `'guard'` where allowed). */
export function validateSeamName(method: string, rawName: unknown): SeamName;
export function validateSeamName(method: string, rawName: unknown, allowGuard: true): SeamName | 'guard';
export function validateSeamName(method: string, rawName: unknown, allowGuard = false): SeamName | 'guard' {
  if (isSeamName(rawName) || (allowGuard && rawName === 'guard')) return rawName;
  const suggestion = typeof rawName === 'string' ? suggestSeam(rawName) : undefined;
  const hint = suggestion ? `; did you mean "${suggestion}"?` : ' (see `Seam` for the list)';
  throw new TypeError(
    `Expected the \`name\` argument of seams.${method}() to be a seam name such as "tools/pre-execute", got ${describeReceived(rawName)}${hint}`,
  );
}

/** Throws a `TypeError` unless `rawFn` is a function. */
export function validateFunction(method: string, argument: string, rawFn: unknown): void {
  if (typeof rawFn !== 'function') {
    throw new TypeError(
      `Expected the \`${argument}\` argument of seams.${method}() to be a function, got ${describeReceived(rawFn)}`,
    );
  }
}

/** Throws a `TypeError` naming the first malformed listener option. */
export function validateListenerOptions(method: string, rawOptions: unknown): ListenerOptions {
  if (rawOptions === undefined) return {};
  if (rawOptions === null || typeof rawOptions !== 'object') {
    throw new TypeError(
      `Expected the options of seams.${method}() to be an object, got ${describeReceived(rawOptions)}`,
    );
  }
  const options = rawOptions as Record<string, unknown>;
  checkOption(method, 'prepend', options.prepend, (v) => typeof v === 'boolean', 'a boolean');
  checkOption(
    method,
    'name',
    options.name,
    (v) => typeof v === 'string' && v.length > 0,
    'a non-empty string',
  );
  checkOption(
    method,
    'agent',
    options.agent,
    (v) => typeof v === 'string' && v.length > 0,
    'a non-empty agent id',
  );
  return options as ListenerOptions;
}

/** Throws a `TypeError` unless the plugin has a non-empty `name` and an `apply` function. */
export function validatePlugin(rawPlugin: unknown): SeamPlugin {
  const plugin = (rawPlugin ?? {}) as Record<string, unknown>;
  if (typeof plugin.name !== 'string' || plugin.name.length === 0) {
    throw new TypeError(
      `Expected the plugin's \`name\` to be a non-empty string, got ${describeReceived(plugin.name)}`,
    );
  }
  if (typeof plugin.apply !== 'function') {
    throw new TypeError(
      `Expected plugin "${plugin.name}" to have an \`apply\` function, got ${describeReceived(plugin.apply)}`,
    );
  }
  return plugin as unknown as SeamPlugin;
}

function checkOption(
  method: string,
  option: string,
  value: unknown,
  isValid: (value: unknown) => boolean,
  expected: string,
): void {
  if (value === undefined || isValid(value)) return;
  throw new TypeError(
    `Expected the \`${option}\` option of seams.${method}() to be ${expected}, got ${describeReceived(value)}`,
  );
}

// Typos like "tools/preexecute" are the usual mistake; suggest the nearest name within a few edits.
function suggestSeam(rawName: string): SeamName | undefined {
  let best: { name: SeamName; distance: number } | undefined;
  for (const name of seamNames) {
    const distance = editDistance(rawName, name);
    if (distance <= 3 && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
