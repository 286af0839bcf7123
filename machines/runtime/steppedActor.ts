import type {
  ActorSystem,
  AnyActorRef,
  AnyActorScope,
  AnyMachineSnapshot,
  AnyStateMachine,
  EventObject,
  InputFrom,
} from 'xstate';

/** Where a stepped machine lives: the parent that steps it, and what the parent hears back. */
export interface SteppedActorHost<TLogic extends AnyStateMachine> {
  /** Its actions' `self._parent`: the machine that steps it. */
  readonly parent: AnyActorRef;
  /** The parent's actor system: its live handles, its scheduler (delayed events), its inspection. */
  readonly system: ActorSystem<any>;
  /** Its actions' `self.id` and `self.sessionId` (unique in the system: its delayed events are keyed by it). */
  readonly id: string;
  readonly sessionId: string;
  readonly input: InputFrom<TLogic>;
  /** It reached its final state (the parent's `xstate.done.actor.<id>`, for a spawned child). */
  done(output: unknown): void;
  /** A step threw (the parent's `xstate.error.actor.<id>`, for a spawned child). */
  failed(error: unknown): void;
}

/**
 * A machine stepped with XState's `transition` by the one who holds it: no actor of its own. An event
 * sent to it (by its parent, its phases, its signal, its timer) is stepped at once, as an idle actor
 * would take it; one sent from inside a step runs right after that step.
 */
export interface SteppedActor {
  /** What its actions see as `self`: the snapshot, `send`, `_parent`. */
  readonly ref: AnyActorRef;
  /** Takes `event` to rest; an event for a machine that ended is dropped, as a stopped actor's would be. */
  step(event: EventObject): void;
  /** Stops it as `stopChild` would (its stop event releases what it holds, its timers go); idempotent. */
  stop(): void;
}

// XState's own inspection channel (its `macrostep` reports microsteps through it); absent on a foreign system.
type Inspect = (event: Record<string, unknown>) => void;
const inspectorOf = (system: ActorSystem<any>): Inspect | undefined =>
  (system as { _sendInspectionEvent?: Inspect })._sendInspectionEvent;

/**
 * Creates and starts a stepped machine: each event is one `logic.transition` with a scope of its own,
 * its actions run as an actor runs them (at once; delayed events on the parent system's scheduler), it
 * tells its parent how it ended as a child would, and inspection sees it as an actor (`@xstate.actor`,
 * `.event`, `.snapshot`, `.action`). For machines with no children: it cannot spawn or invoke.
 * @param logic the provided machine
 * @param host the parent, its system, the machine's identity and input, and where its events go
 */
export function startSteppedActor<TLogic extends AnyStateMachine>(
  logic: TLogic,
  host: SteppedActorHost<TLogic>,
): SteppedActor {
  const { system, id, sessionId } = host;
  const inspect = inspectorOf(system);
  let snapshot: AnyMachineSnapshot | undefined;
  let initializing = true;
  let stepping = false;
  const mailbox: EventObject[] = [];
  // The actor's `_deferred`: initial actions (run once the first snapshot is there) and delayed events.
  const deferred: (() => void)[] = [];
  const ref = {
    id,
    sessionId,
    _parent: host.parent,
    system,
    src: logic,
    logic,
    send: (event: EventObject) => step(event),
    // The scheduler relays a delayed event to its target's `_send`.
    _send: (event: EventObject) => step(event),
    getSnapshot: () => snapshot,
  } as unknown as AnyActorRef;
  const scope: AnyActorScope = {
    self: ref,
    id,
    sessionId,
    logger: system._logger,
    system,
    defer: (fn) => void deferred.push(fn),
    emit: () => {},
    stopChild: () => {
      throw new Error(`The stepped machine "${id}" has no children to stop`);
    },
    actionExecutor: (action) => {
      const exec = (): void => {
        inspect?.({
          type: '@xstate.action',
          actorRef: ref,
          action: { type: action.type, params: action.params },
        });
        action.exec?.(action.info, action.params);
      };
      if (initializing) deferred.push(exec);
      else exec();
    },
  };
  const live = (): boolean => snapshot !== undefined && snapshot.status === 'active';
  const end = (): void => system.scheduler.cancelAll(ref);

  // What the actor's `update` does: keep the snapshot, run what was deferred, report how it ended.
  const settle = (next: AnyMachineSnapshot, event: EventObject): void => {
    snapshot = next;
    for (let fn = deferred.shift(); fn !== undefined; fn = deferred.shift()) {
      try {
        fn();
      } catch (error) {
        deferred.length = 0;
        snapshot = { ...next, status: 'error', error } as AnyMachineSnapshot;
      }
    }
    inspect?.({ type: '@xstate.snapshot', actorRef: ref, event, snapshot });
    const ended = snapshot as { status: string; output?: unknown; error?: unknown };
    if (ended.status === 'done') {
      end();
      host.done(ended.output);
    } else if (ended.status === 'error') {
      end();
      host.failed(ended.error);
    }
  };
  const fail = (error: unknown, event: EventObject): void => {
    deferred.length = 0;
    settle({ ...(snapshot ?? {}), status: 'error', error } as AnyMachineSnapshot, event);
  };

  inspect?.({ type: '@xstate.actor', actorRef: ref });
  const init = { type: 'xstate.init', input: host.input } as EventObject;
  let initial: AnyMachineSnapshot;
  try {
    initial = logic.getInitialSnapshot(scope, host.input) as AnyMachineSnapshot;
  } catch (error) {
    initializing = false;
    fail(error, init);
    return { ref, step: () => {}, stop: () => {} };
  }
  initializing = false;
  settle(initial, init);

  function step(event: EventObject): void {
    // One event at a time, as a mailbox would: an event sent from inside a step runs after it.
    if (stepping) {
      mailbox.push(event);
      return;
    }
    stepping = true;
    try {
      for (let next: EventObject | undefined = event; next !== undefined && live(); next = mailbox.shift()) {
        inspect?.({ type: '@xstate.event', sourceRef: undefined, actorRef: ref, event: next });
        let after: AnyMachineSnapshot;
        try {
          after = logic.transition(snapshot!, next, scope);
        } catch (error) {
          fail(error, next);
          break;
        }
        settle(after, next);
      }
    } finally {
      stepping = false;
      mailbox.length = 0;
    }
  }
  const stop = (): void => {
    if (!live()) return;
    const event = { type: 'xstate.stop' } as EventObject;
    try {
      snapshot = logic.transition(snapshot!, event, scope);
    } catch {
      snapshot = { ...snapshot!, status: 'stopped' } as AnyMachineSnapshot;
    }
    deferred.length = 0;
    end();
    inspect?.({ type: '@xstate.snapshot', actorRef: ref, event, snapshot });
  };
  return { ref, step, stop };
}
