/**
 * A signal that aborts as soon as `a` or `b` aborts, with that signal's reason (as `AbortSignal.any`).
 * `AbortSignal.any` links its signals through `WeakRef`s, whose targets V8 keeps alive until the
 * current job ends: a session driven only by promises never ends its job, so every turn's signals
 * (and all they reach) would pile up. Plain listeners die with the turn's own signals.
 */
export function eitherSignal(a: AbortSignal, b: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const aborted = a.aborted ? a : b.aborted ? b : undefined;
  if (aborted) {
    controller.abort(aborted.reason);
    return controller.signal;
  }
  const onAbort = (event: Event): void => {
    a.removeEventListener('abort', onAbort);
    b.removeEventListener('abort', onAbort);
    controller.abort((event.target as AbortSignal).reason);
  };
  a.addEventListener('abort', onAbort, { once: true });
  b.addEventListener('abort', onAbort, { once: true });
  return controller.signal;
}

/**
 * Like `eitherSignal`, for a signal that lives shorter than its sources (one model request of a turn):
 * `dispose()` removes its two listeners, so a turn of 1,000 steps never holds more than one.
 */
export function linkSignals(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const aborted = a.aborted ? a : b.aborted ? b : undefined;
  if (aborted) {
    controller.abort(aborted.reason);
    return { signal: controller.signal, dispose: () => {} };
  }
  const dispose = (): void => {
    a.removeEventListener('abort', onAbort);
    b.removeEventListener('abort', onAbort);
  };
  const onAbort = (event: Event): void => {
    dispose();
    controller.abort((event.target as AbortSignal).reason);
  };
  a.addEventListener('abort', onAbort, { once: true });
  b.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, dispose };
}
