import { describeReceived, describeThrown, isThenable } from '../kernel/index.js';
import { createDisposer } from './disposer.js';
import type { ListenerEntry, Register } from './listener-entry.js';
import { logSafely } from './report.js';
import type { Disposer, SeamLogger, Seams } from './types.js';
import {
  validateFunction,
  validateListenerOptions,
  validatePlugin,
  validateSeamName,
} from './validate-arguments.js';

/**
 * Applies a plugin through a view of the registry that remembers what it registered, and returns
 * one disposer that removes all of it (hot-reload safe) before running the plugin's own cleanup.
 */
export function usePlugin(rawPlugin: unknown, root: Seams, register: Register, logger: SeamLogger): Disposer {
  const plugin = validatePlugin(rawPlugin);
  const owned: Disposer[] = [];
  let disposed = false;
  const track = (disposer: Disposer): Disposer => {
    if (disposed) {
      disposer();
      throw new Error(
        `Plugin "${plugin.name}" was disposed; register listeners through a new seams.use() instead`,
      );
    }
    owned.push(disposer);
    return disposer;
  };
  const view: Seams = Object.freeze({
    ...root,
    get approval() {
      return root.approval;
    },
    on: (name, listener, rawOptions) => {
      const seam = validateSeamName('on', name);
      validateFunction('on', 'listener', listener);
      const listenerOptions = validateListenerOptions('on', rawOptions);
      return track(register(seam, listener as ListenerEntry['fn'], listenerOptions, plugin.name));
    },
    guard: (fn, rawOptions) => {
      validateFunction('guard', 'fn', fn);
      const { prepend: _ignored, ...guardOptions } = validateListenerOptions('guard', rawOptions);
      return track(register('guard', fn, guardOptions, plugin.name));
    },
    use: (child) => track(usePlugin(child, root, register, logger)),
  } satisfies Seams);
  const removeAll = (): void => {
    disposed = true;
    // Reverse order undoes nested plugins before the listeners they were layered on.
    for (const disposer of owned.reverse()) disposer();
  };
  let ownCleanup: unknown;
  try {
    ownCleanup = plugin.apply(view);
  } catch (error) {
    removeAll();
    throw error;
  }
  if (ownCleanup !== undefined && typeof ownCleanup !== 'function') {
    removeAll();
    const hint = isThenable(ownCleanup)
      ? '; apply() must be synchronous, register listeners before returning'
      : '';
    throw new TypeError(
      `Expected plugin "${plugin.name}" apply() to return a cleanup function or nothing, got ${describeReceived(ownCleanup)}${hint}`,
    );
  }
  return createDisposer(() => {
    removeAll();
    try {
      (ownCleanup as (() => void) | undefined)?.();
    } catch (error) {
      logSafely(logger, `Plugin "${plugin.name}" cleanup failed: ${describeThrown(error)}`, {
        plugin: plugin.name,
        error,
      });
    }
  });
}
