import type { Disposer } from './types.js';

/** Wraps a cleanup so it runs at most once and works with `using`. */
export function createDisposer(cleanup: () => void): Disposer {
  let done = false;
  const dispose = (): void => {
    if (done) return;
    done = true;
    cleanup();
  };
  return Object.assign(dispose, { [Symbol.dispose]: dispose });
}
