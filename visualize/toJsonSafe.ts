/** A value that `JSON.parse(JSON.stringify(x))` returns unchanged. */
export type JsonSafe = null | boolean | number | string | JsonSafe[] | { [key: string]: JsonSafe };

/** Rewrites a value before it is made JSON-safe (`key` is its property name, `''` at the top). */
export type JsonSafeHook = (key: string, value: unknown) => unknown;

const MAX_DEPTH = 64;

/**
 * Copy a value into plain JSON data: `toJSON()` honoured, functions and symbols dropped, cycles and
 * over-deep nesting replaced by a marker string, errors as `{ name, message }`, maps and sets as data.
 * @param value anything
 * @param hook optional rewrite applied to every value before it is copied
 * @example
 * appendFileSync(path, `${JSON.stringify(toJsonSafe(snapshot))}\n`);
 */
export function toJsonSafe(value: unknown, hook?: JsonSafeHook): JsonSafe | undefined {
  return copy('', value, hook, new Set(), 0);
}

function copy(
  key: string,
  raw: unknown,
  hook: JsonSafeHook | undefined,
  path: Set<object>,
  depth: number,
): JsonSafe | undefined {
  const value = hook === undefined ? raw : hook(key, raw);
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return undefined; // functions, symbols, undefined
  if (path.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[MaxDepth]';
  path.add(value);
  try {
    return copyObject(key, value, hook, path, depth + 1);
  } finally {
    path.delete(value);
  }
}

function copyObject(
  key: string,
  value: object,
  hook: JsonSafeHook | undefined,
  path: Set<object>,
  depth: number,
): JsonSafe | undefined {
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return copy(key, toJSON.call(value, key), hook, path, depth);
  if (value instanceof Error) return errorToJson(value, hook, path, depth);
  if (value instanceof Map) return copy(key, Object.fromEntries(value), hook, path, depth);
  if (value instanceof Set) return copy(key, [...value], hook, path, depth);
  if (Array.isArray(value)) {
    const items: JsonSafe[] = [];
    value.forEach((item, index) => {
      const copied = copy(String(index), item, hook, path, depth);
      if (copied !== undefined) items.push(copied);
    });
    return items;
  }
  const result: { [key: string]: JsonSafe } = {};
  for (const [name, item] of Object.entries(value)) {
    const copied = copy(name, item, hook, path, depth);
    if (copied !== undefined) result[name] = copied;
  }
  return result;
}

function errorToJson(
  error: Error,
  hook: JsonSafeHook | undefined,
  path: Set<object>,
  depth: number,
): JsonSafe {
  const code = (error as { code?: unknown }).code;
  const result: { [key: string]: JsonSafe } = { name: error.name, message: error.message };
  const copied = copy('code', code, hook, path, depth);
  if (copied !== undefined) result.code = copied;
  return result;
}
