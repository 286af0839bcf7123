// Label text shared by the renderers: events, guards, delays and invoke notes.

const DONE_ACTOR = 'xstate.done.actor.';
const ERROR_ACTOR = 'xstate.error.actor.';
const DONE_STATE = 'xstate.done.state.';

/** `xstate.done.actor.seal` → `done: seal`; `''` (eventless) → `always`; a state's done → `onDone`. */
export function describeEvent(eventType: string): string {
  if (eventType === '') return 'always';
  if (eventType.startsWith(DONE_ACTOR)) return `done: ${eventType.slice(DONE_ACTOR.length)}`;
  if (eventType.startsWith(ERROR_ACTOR)) return `error: ${eventType.slice(ERROR_ACTOR.length)}`;
  if (eventType.startsWith(DONE_STATE)) return 'onDone';
  return eventType;
}

/** A named delay stays a name; a number of milliseconds gets its unit. */
export function describeDelay(delay: unknown): string {
  return typeof delay === 'number' ? `after ${delay}ms` : `after ${String(delay)}`;
}

/** `'isLive'` → `isLive`; `{ type, params }` → `type(k=v)`; `not(g)` and other guard functions by name. */
export function describeGuard(guard: unknown): string | undefined {
  if (guard === undefined || guard === null) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const inner = (guard as { guards?: unknown }).guards;
    const name = guard.name || 'inline';
    return Array.isArray(inner) ? `${name}(${inner.map((g) => describeGuard(g) ?? '?').join(', ')})` : name;
  }
  if (typeof guard === 'object' && typeof (guard as { type?: unknown }).type === 'string') {
    const { type, params } = guard as { type: string; params?: unknown };
    return params === undefined || typeof params === 'function' ? type : `${type}(${describeParams(params)})`;
  }
  return 'inline';
}

function describeParams(params: unknown): string {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return describeValue(params);
  return Object.entries(params)
    .map(([key, value]) => `${key}=${describeValue(value)}`)
    .join(', ');
}

function describeValue(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

/** The edge label: event (or `always`/`after …`) plus ` [guard]` when guarded. */
export function describeTransition(event: string, guard: unknown): string {
  const guardText = describeGuard(guard);
  return guardText === undefined ? event : `${event} [${guardText}]`;
}
