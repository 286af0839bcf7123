import type { ActorSystem, AnyStateMachine, SnapshotFrom } from 'xstate';

/** The event XState delivers to an actor's logic when the actor is stopped. */
const stopEventType = 'xstate.stop';

/**
 * Makes `logic` call `release` when an actor of it is stopped from outside, and keeps doing so for
 * every logic `provide` derives from it (a stopped actor runs no exit action: its stop event is the
 * one place to abort what a state started).
 * @param logic the provided machine whose actors hold live work (a phase, a request)
 * @param release what to let go of, from the snapshot the actor stopped in
 */
export function releasingOnStop<TLogic extends AnyStateMachine>(
  logic: TLogic,
  release: (snapshot: SnapshotFrom<TLogic>, system: ActorSystem<any>) => void,
): TLogic {
  const step = logic.transition.bind(logic);
  const provide = logic.provide.bind(logic);
  logic.transition = (snapshot, event, scope) => {
    if ((event as { type: string }).type === stopEventType)
      release(snapshot as SnapshotFrom<TLogic>, scope.system);
    return step(snapshot, event, scope);
  };
  // `provide` builds a new machine from the config: it gets the same release.
  logic.provide = (implementations) => releasingOnStop(provide(implementations) as TLogic, release);
  return logic;
}
