import type {
  ActorSystem,
  AnyActorRef,
  AnyActorScope,
  AnyMachineSnapshot,
  AnyStateMachine,
  EventObject,
  InputFrom,
} from 'xstate';
import { inspectorOf } from './inspection.js';

/** Where a stepped machine lives: the parent that steps it, and what the parent hears back. */
export interface SteppedActorHost<TLogic extends AnyStateMachine> {
  /** The machine that steps it: inspection sees its start sent from there, as a child's is. */
  readonly parent: AnyActorRef;
  /** The parent's actor system: its live handles, its services, its inspection channel. */
  readonly system: ActorSystem<any>;
  /** Its actions' `self.id` and `self.sessionId` (unique in the system). */
  readonly id: string;
  readonly sessionId: string;
  readonly input: InputFrom<TLogic>;
  /** It reached its final state (the parent's `xstate.done.actor.<id>`, for a spawned child). */
  done(output: unknown): void;
  /** A step threw (the parent's `xstate.error.actor.<id>`, for a spawned child). */
  failed(error: unknown): void;
}

/**
 * A machine stepped by the engine with its logic's public `transition` (no actor of its own). An event
 * sent to it (by its parent, its phases, its signal, its timer) is stepped at once, as an idle actor
 * would take it; one sent from inside a step runs right after that step.
 */
export interface SteppedActor {
  /** What its actions see as `self`: the snapshot, `send`, `subscribe` (told when it completes or is stopped). */
  readonly ref: AnyActorRef;
  /** As `actor.start()`: its initial state and entry actions (no-op once started). */
  start(): void;
  /** As `actor.send`: takes `event` to rest; one for a machine that ended is dropped, as a stopped actor's would be. */
  send(event: EventObject): void;
  /** Stops it as `stopChild` would (what it holds is released, its timers go); idempotent. */
  stop(): void;
}

// The built-in actions the engine executes itself: a delayed raise runs on the engine's own timer.
const raiseType = 'xstate.raise';
const cancelType = 'xstate.cancel';

/**
 * Creates a stepped machine (`start()` it, as an actor): each event is one `logic.transition` with a
 * scope of its own; its actions run as an actor runs them (at once; a delayed raise on a timer the
 * engine owns); it tells its host how it ended; and the engine's inspection channel sees it as an
 * actor (`@xstate.actor`, `.event`, `.snapshot`, `.action`; XState reports its microsteps). For
 * machines with no children: it cannot spawn or invoke.
 * @param logic the provided machine
 * @param host the system, the machine's identity and input, and where its end is reported
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
  // What an actor defers: initial actions (run once the first snapshot is there) and sends.
  const deferred: (() => void)[] = [];
  // Its delayed raises, by send id: cancelled when it ends or is stopped.
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  // Who subscribed (its own actions may): told when it completes, as an actor's observers are.
  const observers = new Set<{ complete?: () => void }>();
  const complete = (): void => {
    for (const observer of observers) observer.complete?.();
    observers.clear();
  };
  const ref = {
    id,
    sessionId,
    system,
    src: logic,
    logic,
    // As `Actor.send`: inspection sees the event (from no source), then it is taken.
    send: (event: EventObject) => {
      inspect?.({ type: '@xstate.event', sourceRef: undefined, actorRef: ref, event });
      step(event);
    },
    getSnapshot: () => snapshot,
    subscribe: (observer: { complete?: () => void }) => {
      observers.add(observer);
      return { unsubscribe: () => void observers.delete(observer) };
    },
  } as unknown as AnyActorRef;
  // A delayed raise: the event comes back to it after `delay`, unless cancelled or ended first.
  const schedule = (params: { event: EventObject; delay: number; id?: string }): void => {
    const key = params.id ?? `${timers.size}:${params.event.type}`;
    const pending = timers.get(key);
    if (pending !== undefined) clearTimeout(pending);
    const timer = setTimeout(() => {
      timers.delete(key);
      inspect?.({ type: '@xstate.event', sourceRef: ref, actorRef: ref, event: params.event });
      step(params.event);
    }, params.delay);
    // A pending grace never holds the process open.
    timer.unref?.();
    timers.set(key, timer);
  };
  const cancel = (key: string): void => {
    const pending = timers.get(key);
    if (pending !== undefined) clearTimeout(pending);
    timers.delete(key);
  };
  const scope: AnyActorScope = {
    self: ref,
    id,
    sessionId,
    logger: console.log,
    system,
    defer: (fn) => void deferred.push(fn),
    emit: () => {},
    stopChild: () => {
      throw new Error(`The stepped machine "${id}" has no children to stop`);
    },
    actionExecutor: (action) => {
      const params = action.params as { event?: EventObject; delay?: unknown; id?: string; sendId?: string };
      const exec = (): void => {
        inspect?.({
          type: '@xstate.action',
          actorRef: ref,
          action: { type: action.type, params: action.params },
        });
        if (action.type === raiseType && typeof params?.delay === 'number')
          schedule(params as { event: EventObject; delay: number; id?: string });
        else if (action.type === cancelType && typeof params?.sendId === 'string') cancel(params.sendId);
        else action.exec?.(action.info, action.params);
      };
      if (initializing) deferred.push(exec);
      else exec();
    },
  };
  const live = (): boolean => snapshot !== undefined && snapshot.status === 'active';
  const end = (): void => {
    for (const timer of timers.values()) clearTimeout(timer);
    timers.clear();
  };

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
      complete();
      host.done(ended.output);
    } else if (ended.status === 'error') {
      end();
      observers.clear();
      host.failed(ended.error);
    }
    inspect?.({ type: '@xstate.snapshot', actorRef: ref, event, snapshot });
  };
  const fail = (error: unknown, event: EventObject): void => {
    deferred.length = 0;
    settle({ ...(snapshot ?? {}), status: 'error', error } as AnyMachineSnapshot, event);
  };
  // As a stopped actor: what it holds is released, its stop event taken (no exit actions), its timers cancelled.
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
    complete();
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
