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
  return copy(value, { root: path, keys: [] }, new Set());
}

/** Where `copy` is: the path is joined only for an error message, not built for every value. */
interface At {
  readonly root: string;
  readonly keys: (string | number)[];
}

function pathOf(at: At): string {
  return at.keys.reduce<string>(
    (path, key) => (typeof key === 'number' ? `${path}[${key}]` : `${path}.${key}`),
    at.root,
  );
}

function copy(value: unknown, at: At, ancestors: Set<object>): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value;
    throw new NotJsonError(pathOf(at), `\`${value}\` (number)`);
  }
  if (typeof value !== 'object') throw new NotJsonError(pathOf(at), `a ${typeof value}`);
  if (ancestors.has(value)) throw new NotJsonError(pathOf(at), 'a circular reference');
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      const out: JsonValue[] = [];
      for (let index = 0; index < value.length; index++) {
        at.keys.push(index);
        if (!(index in value)) throw new NotJsonError(pathOf(at), 'a hole in a sparse array');
        out.push(copy(value[index], at, ancestors));
        at.keys.pop();
      }
      return Object.freeze(out) as JsonValue;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw new NotJsonError(pathOf(at), `an instance of ${proto?.constructor?.name ?? 'a class'}`);
    }
    const out: { [key: string]: JsonValue } = {};
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key];
      if (item === undefined) continue;
      at.keys.push(key);
      out[key] = copy(item, at, ancestors);
      at.keys.pop();
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
