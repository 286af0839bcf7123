// Live handles stay mutable: the agent handle's log keeps growing, and a signal must stay abortable.
const LIVE_HANDLE_KEYS = new Set(['agent', 'signal']);

/**
 * Freezes plain objects and arrays recursively (in place) and returns the value. Class instances,
 * functions and live handles (`agent`, `signal`) are left alone: listeners observe, they do not own.
 */
export function deepFreeze<T>(value: T): T {
  if (isPlainContainer(value)) freezeInto(value, undefined);
  return value;
}

// `seen` (for cycles) is made at the root's first nested container, before any recursion: a flat
// decision allocates nothing, and every nested call gets the root's set.
function freezeInto(value: object, seen: WeakSet<object> | undefined): void {
  Object.freeze(value);
  const isArray = Array.isArray(value);
  for (const key of Object.keys(value)) {
    if (!isArray && LIVE_HANDLE_KEYS.has(key)) continue;
    const child = (value as Record<string, unknown>)[key];
    if (!isPlainContainer(child)) continue;
    seen ??= new WeakSet([value]);
    if (seen.has(child)) continue;
    seen.add(child);
    freezeInto(child, seen);
  }
}

function isPlainContainer(value: unknown): value is object {
  if (Array.isArray(value)) return true;
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// How many containers `isDeepFrozen` looks at before answering "no": bounds a cycle or a large value.
const DEEP_FROZEN_BUDGET = 64;

/**
 * Whether a value can no longer change: a primitive, or a frozen plain object or array whose values
 * all are (a class instance or a function counts as changeable). Answers `false` for a value of
 * more than `DEEP_FROZEN_BUDGET` containers, so a cycle or a large value is simply not vouched for.
 */
export function isDeepFrozen(value: unknown): boolean {
  return frozenWithin(value, DEEP_FROZEN_BUDGET) >= 0;
}

// The budget left after checking `value`, or -1 when it is not deep-frozen (or the budget ran out).
function frozenWithin(value: unknown, budget: number): number {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return budget;
  if (budget === 0 || !isPlainContainer(value) || !Object.isFrozen(value)) return -1;
  let left = budget - 1;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    left = frozenWithin(record[key], left);
    if (left < 0) return -1;
  }
  return left;
}

/** A frozen view of a listener context: the object itself if already frozen, else a frozen shallow copy. */
export function freezeContext<T extends object>(ctx: T): T {
  // Keeping a frozen object as is preserves identity (a sealed tool execution stays `===` itself).
  return Object.isFrozen(ctx) ? ctx : Object.freeze({ ...ctx });
}
