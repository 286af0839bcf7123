import { cutChars } from './cutChars.js';

const MAX_PREVIEW = 60;

/** A short, printable preview of any value for messages: `"maybe"`, `42`, `10n`, `undefined`, `object`; never throws. */
export function describeValue(value: unknown): string {
  try {
    return previewOf(value);
  } catch {
    return 'an unprintable value';
  }
}

/**
 * A received value as execa prints it: a primitive with its type (`` `-1` (number) ``), a plain object or
 * array as a short JSON preview with its kind (`` `{"retries":3}` (object) ``), otherwise by kind
 * (`a Promise`, `function parse`, `an instance of Date`, `an object` when it cannot be printed). Never throws.
 */
export function describeReceived(value: unknown): string {
  try {
    if (typeof value === 'function') return functionName(value) ?? 'a function';
    if (typeof value === 'object' && value !== null) return describeObject(value);
    return `\`${previewOf(value)}\` (${value === null ? 'null' : typeof value})`;
  } catch {
    return 'an unprintable value';
  }
}

/** Whether a value looks like a promise (what an async function returns); a throwing `then` getter is not one. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  try {
    return typeof (value as { then?: unknown }).then === 'function';
  } catch {
    return false;
  }
}

/** Cuts a text to `max` characters, marking the cut with `…`. */
export function capText(text: string, max: number): string {
  return text.length > max ? `${cutChars(text, max - 1)}…` : text;
}

function previewOf(value: unknown): string {
  if (typeof value === 'string') {
    // Cut before quoting: a huge string is not copied whole.
    const quoted = JSON.stringify(value.length > MAX_PREVIEW ? value.slice(0, MAX_PREVIEW) : value);
    return quoted.length > MAX_PREVIEW ? `${quoted.slice(0, MAX_PREVIEW - 2)}…"` : quoted;
  }
  if (typeof value === 'bigint') return capText(`${value}n`, MAX_PREVIEW);
  // String() of a symbol reads no user code (unlike symbol.toString()).
  if (typeof value === 'symbol') return capText(String(value), MAX_PREVIEW);
  if (typeof value === 'function') return functionName(value) ?? 'function';
  if (typeof value !== 'object' || value === null) return String(value);
  if (isArray(value)) return 'array';
  if (isThenable(value)) return 'a Promise';
  return 'object';
}

function describeObject(value: object): string {
  const array = isArray(value);
  if (!array && isThenable(value)) return 'a Promise';
  if (!array && !isPlainObject(value)) return instanceName(value) ?? 'an object';
  const json = jsonPreview(value);
  if (json !== undefined) return `\`${json}\` (${array ? 'array' : 'object'})`;
  return array ? 'an array' : 'an object';
}

// JSON.stringify fails on cycles and BigInt and runs toJSON and getters: any failure means "no preview".
function jsonPreview(value: object): string | undefined {
  try {
    const json = JSON.stringify(value);
    return typeof json === 'string' ? capText(json, MAX_PREVIEW) : undefined;
  } catch {
    return undefined;
  }
}

// A Proxy's getPrototypeOf trap may throw.
function isPlainObject(value: object): boolean {
  try {
    const prototype = Object.getPrototypeOf(value);
    return prototype === null || prototype === Object.prototype;
  } catch {
    return false;
  }
}

function instanceName(value: object): string | undefined {
  try {
    const name = (Object.getPrototypeOf(value)?.constructor as { name?: unknown } | undefined)?.name;
    return typeof name === 'string' && name !== ''
      ? `an instance of ${capText(name, MAX_PREVIEW)}`
      : undefined;
  } catch {
    return undefined;
  }
}

// Array.isArray throws on a revoked Proxy.
function isArray(value: object): boolean {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
}

// A function's `name` may be a throwing getter or not a string.
function functionName(fn: unknown): string | undefined {
  try {
    const name = (fn as { name?: unknown }).name;
    return typeof name === 'string' && name !== '' ? `function ${capText(name, MAX_PREVIEW)}` : undefined;
  } catch {
    return undefined;
  }
}
