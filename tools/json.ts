import type { JsonValue } from '../kernel/index.js';
import { describeThrown } from '../kernel/index.js';

/** Why a value is not plain JSON, and where (a path rooted at `root`). */
export interface JsonSnapshotFailure {
  readonly ok: false;
  readonly reason: string;
  readonly path: string;
}
export type JsonSnapshot = { readonly ok: true; readonly value: JsonValue } | JsonSnapshotFailure;

/**
 * Reads a value once into a detached, deep-frozen plain-JSON copy; reports the first part that
 * would not survive `JSON.parse(JSON.stringify(x))` unchanged (functions, cycles, class instances,
 * NaN, Infinity, -0, `undefined`, sparse arrays, symbols, bigints) instead of copying it.
 */
export function snapshotJson(raw: unknown, root = 'value'): JsonSnapshot {
  try {
    return { ok: true, value: copy(raw, root, []) };
  } catch (error) {
    if (error instanceof NotJson) return { ok: false, reason: error.reason, path: error.path };
    return { ok: false, reason: `an unreadable value (${describeThrown(error)})`, path: root };
  }
}

/** `"NaN at \"value.n\""`: one line for an error message. */
export function formatJsonFailure(failure: JsonSnapshotFailure): string {
  return `${failure.reason} at "${failure.path}"`;
}

/** Freezes a plain JSON tree in place and returns it. */
export function deepFreezeJson<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreezeJson(child);
  }
  return value;
}

class NotJson extends Error {
  constructor(
    readonly reason: string,
    readonly path: string,
  ) {
    super(reason);
  }
}

function copy(value: unknown, path: string, ancestors: object[]): JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (Number.isNaN(value)) throw new NotJson('NaN', path);
      if (!Number.isFinite(value)) throw new NotJson(String(value), path);
      if (Object.is(value, -0)) throw new NotJson('-0', path);
      return value;
    case 'object':
      if (value === null) return null;
      return copyContainer(value, path, ancestors);
    case 'undefined':
      throw new NotJson('undefined', path);
    case 'function':
      throw new NotJson('a function', path);
    default:
      throw new NotJson(`a ${typeof value}`, path);
  }
}

function copyContainer(value: object, path: string, ancestors: object[]): JsonValue {
  if (ancestors.includes(value)) throw new NotJson('a cycle', path);
  const proto = Object.getPrototypeOf(value);
  ancestors.push(value);
  try {
    if (Array.isArray(value)) {
      if (proto !== Array.prototype) throw new NotJson('an array subclass', path);
      const out: JsonValue[] = [];
      for (let i = 0; i < value.length; i++) {
        if (!(i in value)) throw new NotJson('a hole in a sparse array', `${path}[${i}]`);
        out.push(copy(readProperty(value, i, `${path}[${i}]`), `${path}[${i}]`, ancestors));
      }
      return Object.freeze(out) as JsonValue;
    }
    if (proto !== Object.prototype && proto !== null) {
      const name = (proto?.constructor as { name?: string } | undefined)?.name || 'a class';
      throw new NotJson(`an instance of ${name}`, path);
    }
    if (Object.getOwnPropertySymbols(value).length > 0) throw new NotJson('a symbol key', path);
    // fromEntries defines own properties, so a "__proto__" key stays data instead of a prototype.
    const entries = Object.keys(value).map((key) => {
      const at = `${path}.${key}`;
      return [key, copy(readProperty(value, key, at), at, ancestors)] as const;
    });
    return Object.freeze(Object.fromEntries(entries)) as JsonValue;
  } finally {
    ancestors.pop();
  }
}

// Each property is read exactly once, so a stateful getter cannot show two different values.
function readProperty(container: object, key: string | number, path: string): unknown {
  try {
    return (container as Record<string | number, unknown>)[key];
  } catch (error) {
    throw new NotJson(`a getter that threw (${describeThrown(error)})`, path);
  }
}
