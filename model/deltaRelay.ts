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
 * back streamed text even before the adapter notices; its one abort listener is removed when it settles.
 */
export function createDeltaRelay(emit: (delta: StreamedDelta) => void, signal: AbortSignal): DeltaRelay {
  let live = !signal.aborted;
  let streamed = false;
  const onAbort = (): void => settle(true);
  function settle(failed: boolean): void {
    if (!live) return;
    live = false;
    signal.removeEventListener('abort', onAbort);
    if (failed && streamed) emit({ kind: 'discard' });
  }
  if (live) signal.addEventListener('abort', onAbort, { once: true });
  return {
    onDelta(delta) {
      if (!live) return;
      streamed = true;
      emit(delta);
    },
    settle,
  };
}
