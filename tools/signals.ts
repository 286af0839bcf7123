/** A signal linked to others, and the function that detaches it from them. */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Removes the listeners the link put on its sources; call it when the work it guards settles. */
  readonly unlink: () => void;
}

/**
 * A signal that aborts as soon as `a` or `b` aborts, with that signal's reason (as `AbortSignal.any`),
 * plus `unlink` to remove its listeners once the guarded work settled — a long-lived source (a
 * turn's signal) otherwise gains one listener per request and Node warns past ten.
 * `AbortSignal.any` links its signals through `WeakRef`s, whose targets V8 keeps alive until the
 * current job ends: a session driven only by promises never ends its job, so every turn's signals
 * (and all they reach) would pile up. Plain listeners die with the turn's own signals.
 * @example const { signal, unlink } = linkSignals(actorSignal, turnSignal); try { await work(signal) } finally { unlink() }
 */
export function linkSignals(a: AbortSignal, b: AbortSignal): LinkedSignal {
  const controller = new AbortController();
  const aborted = a.aborted ? a : b.aborted ? b : undefined;
  if (aborted) {
    controller.abort(aborted.reason);
    return { signal: controller.signal, unlink: () => {} };
  }
  const unlink = (): void => {
    a.removeEventListener('abort', onAbort);
    b.removeEventListener('abort', onAbort);
  };
  const onAbort = (event: Event): void => {
    unlink();
    controller.abort((event.target as AbortSignal).reason);
  };
  a.addEventListener('abort', onAbort, { once: true });
  b.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, unlink };
}

/**
 * `linkSignals(a, b).signal` for callers that cannot tell when their work settles; the listeners
 * stay on `a` and `b` until one aborts, so prefer `linkSignals` for a long-lived source.
 */
export function eitherSignal(a: AbortSignal, b: AbortSignal): AbortSignal {
  return linkSignals(a, b).signal;
}

/**
 * One abort listener on a long-lived `source` for any number of live controllers: each `add` is
 * aborted with the source's reason, and `add` returns the function that removes it again. The
 * listener goes away with the last controller, so 64 parallel calls put one listener on the turn
 * signal, not 64.
 */
export class AbortFanout {
  readonly #source: AbortSignal;
  readonly #targets = new Set<AbortController>();
  readonly #onAbort = (): void => {
    this.#source.removeEventListener('abort', this.#onAbort);
    for (const target of [...this.#targets]) target.abort(this.#source.reason);
    this.#targets.clear();
  };

  constructor(source: AbortSignal) {
    this.#source = source;
  }

  /** Aborts `target` when the source aborts (at once if it already has); returns its removal. */
  add(target: AbortController): () => void {
    if (this.#source.aborted) {
      target.abort(this.#source.reason);
      return () => {};
    }
    if (this.#targets.size === 0) this.#source.addEventListener('abort', this.#onAbort, { once: true });
    this.#targets.add(target);
    return () => {
      if (!this.#targets.delete(target) || this.#targets.size > 0) return;
      this.#source.removeEventListener('abort', this.#onAbort);
    };
  }
}

const fanouts = new WeakMap<AbortSignal, AbortFanout>();

/** The shared fan-out of `source` (one per signal, dropped with the signal). */
export function fanoutOf(source: AbortSignal): AbortFanout {
  let fanout = fanouts.get(source);
  if (!fanout) {
    fanout = new AbortFanout(source);
    fanouts.set(source, fanout);
  }
  return fanout;
}
