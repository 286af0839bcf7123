/** What `whenStoppedFromOutside` needs of an actor (or of a machine the engine steps). */
interface Observable<TContext> {
  getSnapshot(): { readonly status: string; readonly context: TContext };
  subscribe(observer: { error(): void; complete(): void }): unknown;
}

/**
 * Calls `release` with the last context once `self` is stopped from outside: a stopped actor runs no
 * exit action, so what it still holds is let go of here. A completion or a failure is not a stop.
 * @param self the actor, from an entry action at its root
 * @param release lets go of what the stopped machine held
 */
export function whenStoppedFromOutside<TContext>(
  self: Observable<TContext>,
  release: (context: TContext) => void,
): void {
  self.subscribe({
    // Its failure goes to its parent (or its caller's subscriber); observing it here is not handling it.
    error: () => {},
    complete: () => {
      const stopped = self.getSnapshot();
      if (stopped.status === 'stopped') release(stopped.context);
    },
  });
}
