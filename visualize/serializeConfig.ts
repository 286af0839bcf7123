import type { AnyStateMachine } from 'xstate';
import { describeGuard } from './labels.js';
import { type JsonSafe, toJsonSafe } from './toJsonSafe.js';

/**
 * A machine's config as JSON data for Stately Studio and inspection logs: named actions, guards and
 * actors (with plain-data `params`) kept; inline functions dropped, except inline guards, which keep
 * their name so a guarded transition still reads as guarded.
 * @param machine any XState v5 machine
 * @example
 * JSON.stringify(serializeConfig(toolCallMachine), null, 2);
 */
export function serializeConfig(machine: AnyStateMachine): { [key: string]: JsonSafe } {
  const config = toJsonSafe(machine.config, rewriteConfigValue);
  return config !== null && typeof config === 'object' && !Array.isArray(config) ? config : {};
}

function rewriteConfigValue(key: string, value: unknown): unknown {
  if (key === 'guard' && typeof value === 'function') return describeGuard(value);
  // Inline actor logic (a machine or `fromPromise(...)`) becomes its id, or a placeholder name.
  if (key === 'src' && typeof value === 'object' && value !== null) {
    const id = (value as { id?: unknown }).id;
    return typeof id === 'string' ? id : 'inline';
  }
  return value;
}
