// Live handles stay mutable: the agent handle's log keeps growing, and a signal must stay abortable.
const LIVE_HANDLE_KEYS = new Set(['agent', 'signal']);

/**
 * Freezes plain objects and arrays recursively (in place) and returns the value. Class instances,
 * functions and live handles (`agent`, `signal`) are left alone: listeners observe, they do not own.
 */
export function deepFreeze<T>(value: T): T {
  freezeInto(value, new WeakSet());
  return value;
}

function freezeInto(value: unknown, seen: WeakSet<object>): void {
  if (!isPlainContainer(value) || seen.has(value)) return;
  seen.add(value);
  Object.freeze(value);
  for (const key of Object.keys(value)) {
    if (!Array.isArray(value) && LIVE_HANDLE_KEYS.has(key)) continue;
    freezeInto((value as Record<string, unknown>)[key], seen);
  }
}

function isPlainContainer(value: unknown): value is object {
  if (Array.isArray(value)) return true;
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A frozen view of a listener context: the object itself if already frozen, else a frozen shallow copy. */
export function freezeContext<T extends object>(ctx: T): T {
  // Keeping a frozen object as is preserves identity (a sealed tool execution stays `===` itself).
  return Object.isFrozen(ctx) ? ctx : Object.freeze({ ...ctx });
}
