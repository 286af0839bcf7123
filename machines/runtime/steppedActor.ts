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
  /** As `actor.start()`: its initial state and entry actions (no-op once started). */
  start(): void;
  /** As `actor.send`: takes `event` to rest; one for a machine that ended is dropped, as a stopped actor's would be. */
  send(event: EventObject): void;
  /** Stops it as `stopChild` would (its stop event releases what it holds, its timers go); idempotent. */
  stop(): void;
}

// XState's own inspection channel (its `macrostep` reports microsteps through it); absent on a foreign system.
type Inspect = (event: Record<string, unknown>) => void;
const inspectorOf = (system: ActorSystem<any>): Inspect | undefined =>
  (system as { _sendInspectionEvent?: Inspect })._sendInspectionEvent;

/**
 * Creates a stepped machine (`start()` it, as an actor): each event is one `logic.transition` with a scope of its own,
 * its actions run as an actor runs them (at once; delayed events on the parent system's scheduler), it
 * tells its parent how it ended as a child would, and inspection sees it as an actor (`@xstate.actor`,
 * `.event`, `.snapshot`, `.action`). For machines with no children: it cannot spawn or invoke.
 * @param logic the provided machine
 * @param host the parent, its system, the machine's identity and input, and where its events go
 */
export function createSteppedActor<TLogic extends AnyStateMachine>(
  logic: TLogic,
  host: SteppedActorHost<TLogic>,
): SteppedActor {
  const { system, id, sessionId } = host;
  const inspect = inspectorOf(system);
  let snapshot: AnyMachineSnapshot | undefined;
  let initializing = true;
  // Set while it starts or steps: an event or a stop that arrives then waits for the step to end.
  let busy = false;
  let stopRequested = false;
  // Stopped before it started: `start()` then runs nothing, as for a spawned child stopped before its start.
  let stoppedUnstarted = false;
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
    // As `Actor.send`: inspection sees the event (from no source), then it is taken.
    send: (event: EventObject) => {
      inspect?.({ type: '@xstate.event', sourceRef: undefined, actorRef: ref, event });
      step(event);
    },
    // The scheduler relays a delayed event here after reporting it to inspection itself.
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

  // What the actor's `update` does: keep the snapshot, run what was deferred, report how it ended
  // (the parent hears of its end before inspection sees its last snapshot, as a relayed done event).
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
    const ended = snapshot as { status: string; output?: unknown; error?: unknown };
    if (ended.status === 'done') {
      end();
      host.done(ended.output);
    } else if (ended.status === 'error') {
      end();
      host.failed(ended.error);
    }
    inspect?.({ type: '@xstate.snapshot', actorRef: ref, event, snapshot });
  };
  const fail = (error: unknown, event: EventObject): void => {
    deferred.length = 0;
    settle({ ...(snapshot ?? {}), status: 'error', error } as AnyMachineSnapshot, event);
  };
  // As `Actor._stop`: its stop event through the logic (releasing what it holds), its timers cancelled.
  const halt = (): void => {
    stopRequested = false;
    mailbox.length = 0;
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

  function step(event: EventObject): void {
    // One event at a time, as a mailbox would: an event sent from inside a step (or before the start)
    // runs after it.
    if (busy || (snapshot === undefined && !stoppedUnstarted)) {
      mailbox.push(event);
      return;
    }
    busy = true;
    try {
      for (let next: EventObject | undefined = event; next !== undefined; next = mailbox.shift()) {
        if (stopRequested || !live()) break;
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
      busy = false;
      mailbox.length = 0;
    }
    if (stopRequested) halt();
  }
  // A stop from inside a step (its holder closed it) takes effect once the step is over.
  const stop = (): void => {
    if (busy) stopRequested = true;
    else if (snapshot === undefined) {
      stoppedUnstarted = true;
      mailbox.length = 0;
    } else halt();
  };

  // As `Actor.start`: the first snapshot, then its initial actions, then what they sent it.
  const start = (): void => {
    if (snapshot !== undefined || stoppedUnstarted || busy) return;
    const init = { type: 'xstate.init', input: host.input } as EventObject;
    inspect?.({ type: '@xstate.event', sourceRef: host.parent, actorRef: ref, event: init });
    busy = true;
    try {
      let initial: AnyMachineSnapshot;
      try {
        initial = logic.getInitialSnapshot(scope, host.input) as AnyMachineSnapshot;
      } catch (error) {
        initializing = false;
        fail(error, init);
        return;
      }
      initializing = false;
      settle(initial, init);
    } finally {
      busy = false;
    }
    const queued = mailbox.shift();
    if (queued !== undefined) step(queued);
    else if (stopRequested) halt();
  };

  inspect?.({ type: '@xstate.actor', actorRef: ref });
  return { ref, start, send: ref.send, stop };
}
