import type { ModelDelta, StreamedDelta } from '../kernel/index.js';

/** Forwards one request's deltas while it is live. */
export interface DeltaRelay {
  /** The `onDelta` to hand the adapter: dropped once the request settled or its signal aborted. */
  readonly onDelta: (delta: ModelDelta) => void;
  /** The request settled: later deltas are dropped; `failed` sends `discard` if anything streamed. */
  settle(failed: boolean): void;
}

/**
 * A relay for one model request. An abort settles it as failed at once, so a renderer learns to take
 * back streamed text even before the adapter notices. Its one abort listener is added with the first
 * delta (before it there is nothing to take back; a delta after an abort is dropped by reading the
 * signal) and removed when it settles, so a request that streams nothing adds no listener.
 */
export function createDeltaRelay(emit: (delta: StreamedDelta) => void, signal: AbortSignal): DeltaRelay {
  let live = !signal.aborted;
  let streamed = false;
  const onAbort = (): void => settle(true);
  function settle(failed: boolean): void {
    if (!live) return;
    live = false;
    if (streamed) signal.removeEventListener('abort', onAbort);
    if (failed && streamed) emit({ kind: 'discard' });
  }
  return {
    onDelta(delta) {
      if (!live) return;
      if (signal.aborted) {
        settle(true);
        return;
      }
      if (!streamed) {
        streamed = true;
        signal.addEventListener('abort', onAbort, { once: true });
      }
      emit(delta);
    },
    settle,
  };
}
