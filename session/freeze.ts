import type { JsonValue } from '../kernel/index.js';

/** Thrown by `toFrozenJson` with the path of the first value that is not plain JSON. */
export class NotJsonError extends TypeError {
  override readonly name = 'NotJsonError';
  readonly path: string;
  constructor(path: string, received: string) {
    super(`Expected plain JSON at \`${path}\`, got ${received}`);
    this.path = path;
  }
}

/**
 * Deep-copies plain JSON into deep-frozen objects, detached from the caller's value.
 * `undefined` object properties are dropped (as a JSON round trip would); anything else that is not JSON
 * (functions, class instances, non-finite numbers, bigint, cycles) throws `NotJsonError`.
 * @param value the value to copy
 * @param path where `value` sits, for the error message
 */
export function toFrozenJson(value: unknown, path = 'data'): JsonValue {
  return copy(value, path, new Set());
}

function copy(value: unknown, path: string, ancestors: Set<object>): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value;
    throw new NotJsonError(path, `\`${value}\` (number)`);
  }
  if (typeof value !== 'object') throw new NotJsonError(path, `a ${typeof value}`);
  if (ancestors.has(value)) throw new NotJsonError(path, 'a circular reference');
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      return Object.freeze(
        value.map((item, index) => copy(item, `${path}[${index}]`, ancestors)),
      ) as JsonValue;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw new NotJsonError(path, `an instance of ${proto?.constructor?.name ?? 'a class'}`);
    }
    const out: { [key: string]: JsonValue } = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) out[key] = copy(item, `${path}.${key}`, ancestors);
    }
    return Object.freeze(out);
  } finally {
    ancestors.delete(value);
  }
}

/**
 * Deep-freezes a value that is plain JSON by construction (the output of `JSON.parse`, or a schema's parse of
 * it) in place: the loader's fast path, where a copy would only cost time.
 * @param value a JSON value nobody else holds
 */
export function freezeParsedJson<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) freezeParsedJson(child);
    Object.freeze(value);
  }
  return value;
}
