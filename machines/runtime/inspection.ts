import type { ActorOptions, ActorSystem, InspectionEvent } from 'xstate';

/** An inspection event as a stepped machine reports it (the channel adds the root's id, as XState does). */
export type SteppedInspectionEvent = InspectionEvent extends infer TEvent
  ? TEvent extends InspectionEvent
    ? Omit<TEvent, 'rootId'>
    : never
  : never;

/** Where a stepped machine reports what an actor would report to its system's inspector. */
export type Inspector = (event: SteppedInspectionEvent) => void;

// A per-system side table (engine.md): the system keeps its own observers private, so the engine
// remembers the one its root actor was created with, and a stepped machine reports through it.
const inspectorBySystem = new WeakMap<ActorSystem<any>, Inspector>();

/**
 * The engine's inspection channel: registers the root actor's `inspect` option for its system, so a
 * machine the engine steps inside its parent (no actor of its own) is seen by the same observer.
 * @param system the root actor's system
 * @param rootId the root actor's session id (every inspection event names it)
 * @param inspect the `inspect` option the root actor was created with
 */
export function registerInspector(
  system: ActorSystem<any>,
  rootId: string,
  inspect: ActorOptions<any>['inspect'],
): void {
  const next =
    typeof inspect === 'function'
      ? inspect
      : inspect?.next === undefined
        ? undefined
        : inspect.next.bind(inspect);
  if (next !== undefined)
    inspectorBySystem.set(system, (event) => next({ ...event, rootId } as InspectionEvent));
}

/** The inspector registered for `system` (none: nobody inspects it, and nothing is built for it). */
export function inspectorOf(system: ActorSystem<any>): Inspector | undefined {
  return inspectorBySystem.get(system);
}
