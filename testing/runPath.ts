import { isDeepStrictEqual } from 'node:util';
import {
  type Actor,
  type AnyActorLogic,
  type AnyActorRef,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  createActor,
  type EventObject,
  type InspectionEvent,
  SimulatedClock,
  type StateNode,
} from 'xstate';
import { activeStateNodeIds } from './coverage.js';
import { createDeferredActors, type PendingInvoke } from './deferredActors.js';
import { describeEvent, describePath, type MachinePath } from './shortestSeamPaths.js';

/** A stub being settled: by a path step, or with its default at quiescence. */
export interface Settlement {
  readonly kind: 'done' | 'error';
  readonly pending: PendingInvoke;
  /** The output (`done`) or error (`error`) the stub is settled with. */
  readonly payload: unknown;
}

/** What `onSettle` may return: nothing, or the payload to settle the stub with instead of the path's. */
export type SettleOverride = undefined | void | { readonly payload: unknown };

/** What `runPath` needs besides the path: the real machine with its services, and how to finish. */
export interface RunPathServices<TLog = undefined> {
  /** The machine with real services bound (`create*Logic(services)`); stubs are provided on top. */
  readonly logic: AnyStateMachine;
  readonly input?: unknown;
  /** Actor implementations replaced by deferred stubs; default: every actor the machine declares. */
  readonly stub?: readonly string[];
  /** The machine's `graphEvents`; a stub still pending at quiescence gets the first outcome listed for its id. */
  readonly events?: readonly EventObject[];
  /** Sent at quiescence, each at most once, when the machine accepts it (e.g. `CANCEL`, `DISPOSE`). */
  readonly quiesce?: readonly EventObject[];
  /**
   * Runs (and is awaited) right before a stub settles: lets a stubbed child do what the real one would
   * have logged. Returning `{ payload }` settles the stub with that payload instead (e.g. an output naming
   * what the run really did); it must lead to the same state as the path's.
   */
  readonly onSettle?: (settlement: Settlement) => SettleOverride | Promise<SettleOverride>;
  /** Runs (and is awaited) before each step after the initial one, e.g. to arm a failure for that step. */
  readonly beforeStep?: (event: EventObject, index: number) => void | Promise<void>;
  /** The event actually sent for a step (e.g. a fresh item id per delivery, so a ledger can pair them). */
  readonly prepareEvent?: (event: EventObject, index: number) => EventObject;
  /** The event actually sent at quiescence (e.g. a stubbed call's end that matches what the run did). */
  readonly prepareQuiesceEvent?: (event: EventObject) => EventObject;
  /** Runs after the actor is created and before it starts: open live handles in its system (`liveHandlesOf`). */
  readonly prepare?: (actor: Actor<AnyStateMachine>) => void;
  /**
   * A stand-in parent: the machine runs as its child, so what it sends its parent (`_parent.send`)
   * arrives there. It shares the machine's clock and inspection.
   */
  readonly parent?: AnyActorLogic;
  /**
   * Steps whose event the machine sends itself from a real action (e.g. an append confirming itself):
   * such a step is not sent again, only its state is compared. The step before it may already show
   * its state, since the machine does not wait for anyone to take that step.
   */
  readonly selfSent?: (event: EventObject, index: number) => boolean;
  /** Returned as is (e.g. the session log the services append to). */
  readonly log?: TLog;
  /** Also compare `context` at every step (off: context may hold values the graph never computes). */
  readonly compareContext?: boolean;
  /** `setImmediate` turns to wait after a stub settles; raise it when real async services follow. */
  readonly settleTurns?: number;
  /**
   * Runs (and is awaited) after the path's last step, before quiescence: e.g. send `ABORT` and
   * advance the clock by the grace, settling nothing, to check that no state waits forever.
   */
  readonly afterSteps?: (run: AfterSteps) => void | Promise<void>;
}

/** What `afterSteps` can drive: the actor, its pending stubs, the simulated clock. */
export interface AfterSteps {
  readonly actor: Actor<AnyStateMachine>;
  readonly pending: ReadonlyMap<string, PendingInvoke>;
  /** Sends an event and lets the run settle. */
  send(event: EventObject): Promise<void>;
  /** Advances the simulated clock and lets the run settle. */
  advance(ms: number): Promise<void>;
  /** Settles a pending stub with its default outcome from `events`. */
  settleDefault(id: string): Promise<void>;
}

/** The outcome of one executed path. */
export interface PathRun<TLog = undefined> {
  readonly actor: Actor<AnyStateMachine>;
  /** The snapshot after quiescence. */
  readonly snapshot: AnyMachineSnapshot;
  /** State node ids reached by a step or by a microstep (transient states). */
  readonly visitedStates: ReadonlySet<string>;
  /** What the root actor reported to its error subscriber (empty for a healthy machine). */
  readonly errors: readonly unknown[];
  /** Stubs still pending after quiescence. */
  readonly pending: ReadonlyMap<string, PendingInvoke>;
  readonly log: TLog;
  /** The stand-in parent, when `parent` was given (stopped at the end of the run). */
  readonly parent: AnyActorRef | undefined;
}

const invokeEventPattern = /^xstate\.(done|error)\.actor\.(.+)$/;
const quiesceRounds = 50;
const farFuture = 24 * 60 * 60 * 1000;

/**
 * Executes one graph path against the real machine with deferred stubs: settles a stub for each
 * done/error step, advances a simulated clock for each `xstate.after.*` step, sends everything else,
 * and checks the snapshot value after every step; then drives the run to quiescence.
 * @param path a path from `shortestSeamPaths` (step 0 is the initial state)
 * @param services the provided machine, its input and how to finish the run
 * @throws Error naming the path and step when a value differs or a settled stub is not running
 * @example
 * const run = await runPath(path, { logic: createTurnLogic(services), input, events: graphEvents });
 * expect(checkInvariants(log.events)).toEqual([]);
 */
export async function runPath<TLog = undefined>(
  path: MachinePath,
  services: RunPathServices<TLog>,
): Promise<PathRun<TLog>> {
  const { logic } = services;
  const stubNames = services.stub ?? Object.keys(logic.implementations.actors);
  const { actors, pending } = createDeferredActors(stubNames);
  const clock = new SimulatedClock();
  const visited = new Set<string>();
  const errors: unknown[] = [];
  const visit = (value: unknown): void => {
    for (const id of activeStateNodeIds(logic, value as AnyMachineSnapshot['value'])) visited.add(id);
  };
  let parent: AnyActorRef | undefined;
  const provided = logic.provide({ actors });
  // Its initial states were active, even a transient one that no snapshot shows (left by an eventless step).
  for (let node: StateNode<any, any> | undefined = logic.root; node !== undefined; ) {
    visited.add(node.id);
    node = node.initial?.target[0];
  }
  const inspect = (event: InspectionEvent): void => {
    // Only this machine's: transient states of this machine, not of real child machines (nor of the
    // stand-in parent). Microsteps show eventless hops; snapshots show the initial state, which a
    // self-sent event may leave before start returns.
    const own = parent
      ? (event.actorRef as { logic?: unknown }).logic === provided
      : event.actorRef.sessionId === event.rootId;
    if (own && (event.type === '@xstate.microstep' || event.type === '@xstate.snapshot')) {
      visit((event.snapshot as AnyMachineSnapshot).value);
    }
    // A transition's source was active, even a transient initial state that no snapshot shows.
  };
  // With a parent, the machine joins the parent's system: its clock and inspection are the parent's.
  if (services.parent) parent = createActor(services.parent, { clock, inspect }).start();
  const input = parent === undefined ? services.input : { ...(services.input as object | undefined), parent };
  const actor = createActor(provided, {
    clock,
    ...(parent ? { parent } : { inspect }),
    ...(input === undefined ? {} : { input }),
  }) as Actor<AnyStateMachine>;
  actor.subscribe({ error: (error) => errors.push(error) });
  services.prepare?.(actor);
  actor.start();
  visit(actor.getSnapshot().value);

  const settleTurns = services.settleTurns ?? 1;
  const settle = async (): Promise<void> => {
    for (let turn = 0; turn < settleTurns; turn++) await new Promise((resolve) => setImmediate(resolve));
  };
  const settleStub = async (
    kind: 'done' | 'error',
    entry: PendingInvoke,
    payload: unknown,
  ): Promise<void> => {
    const override = await services.onSettle?.({ kind, pending: entry, payload });
    const settled = override ? override.payload : payload;
    if (kind === 'done') entry.resolve(settled);
    else entry.reject(settled);
    await settle();
  };

  for (const [index, step] of path.steps.entries()) {
    if (index === 0) continue;
    const where = () => `path "${describePath(path)}", step ${index} (${describeEvent(step.event)})`;
    const event = step.event;
    await services.beforeStep?.(event, index);
    const invoke = invokeEventPattern.exec(event.type);
    if (services.selfSent?.(event, index)) {
      await settle();
    } else if (invoke) {
      const [, kind, id] = invoke as unknown as [string, 'done' | 'error', string];
      const entry = pending.get(id);
      if (entry === undefined) {
        throw new Error(
          `In ${where()}: expected invoke "${id}" to be running, but the pending stubs are [${[...pending.keys()].join(', ')}]; ` +
            'is its actor implementation in `stub`?',
        );
      }
      const payload =
        kind === 'done' ? (event as { output?: unknown }).output : (event as { error?: unknown }).error;
      await settleStub(kind, entry, payload);
    } else if (event.type.startsWith('xstate.after.')) {
      clock.increment(resolveDelay(logic, event.type, actor.getSnapshot()));
      await settle();
    } else {
      actor.send(services.prepareEvent ? services.prepareEvent(event, index) : event);
      await settle();
    }
    const snapshot = actor.getSnapshot();
    visit(snapshot.value);
    const expected = (step.state as AnyMachineSnapshot).value;
    const next = path.steps[index + 1];
    const alreadyNext =
      next !== undefined &&
      services.selfSent?.(next.event, index + 1) === true &&
      isDeepStrictEqual(snapshot.value, (next.state as AnyMachineSnapshot).value);
    if (!isDeepStrictEqual(snapshot.value, expected) && !alreadyNext) {
      throw new Error(
        `In ${where()}: expected state ${JSON.stringify(expected)}, received ${JSON.stringify(snapshot.value)}` +
          (errors.length > 0 ? ` (the actor failed: ${String(errors[0])})` : ''),
      );
    }
    if (
      services.compareContext &&
      !isDeepStrictEqual(snapshot.context, (step.state as AnyMachineSnapshot).context)
    ) {
      throw new Error(`In ${where()}: the context differs from the graph's`);
    }
  }

  await services.afterSteps?.({
    actor,
    pending,
    send: async (event) => {
      actor.send(event);
      await settle();
      visit(actor.getSnapshot().value);
    },
    advance: async (ms) => {
      clock.increment(ms);
      await settle();
      visit(actor.getSnapshot().value);
    },
    settleDefault: async (id) => {
      const entry = pending.get(id);
      if (!entry)
        throw new Error(
          `settleDefault: no pending stub "${id}" (pending: ${[...pending.keys()].join(', ')})`,
        );
      const outcome = defaultOutcome(services.events ?? [], id);
      await settleStub(outcome.kind, entry, outcome.payload);
    },
  });
  await quiesce(actor, pending, services, settleStub, async () => {
    clock.increment(farFuture);
    await settle();
  });
  visit(actor.getSnapshot().value);
  parent?.stop();
  return {
    actor,
    parent,
    snapshot: actor.getSnapshot(),
    visitedStates: visited,
    errors,
    pending,
    log: services.log as TLog,
  };
}

// Cancels what accepts a cancel, settles what is pending with its default, lets delays fire; stops when nothing moves.
async function quiesce(
  actor: Actor<AnyStateMachine>,
  pending: Map<string, PendingInvoke>,
  services: RunPathServices<unknown>,
  settleStub: (kind: 'done' | 'error', entry: PendingInvoke, payload: unknown) => Promise<void>,
  advanceTime: () => Promise<void>,
): Promise<void> {
  const sent = new Set<number>();
  for (let round = 0; round < quiesceRounds && actor.getSnapshot().status === 'active'; round++) {
    const index = (services.quiesce ?? []).findIndex(
      (event, i) => !sent.has(i) && actor.getSnapshot().can(event),
    );
    if (index !== -1) {
      sent.add(index);
      const event = services.quiesce![index]!;
      actor.send(services.prepareQuiesceEvent ? services.prepareQuiesceEvent(event) : event);
      await new Promise((resolve) => setImmediate(resolve));
      continue;
    }
    const entry = pending.values().next().value;
    if (entry !== undefined) {
      const outcome = defaultOutcome(services.events ?? [], entry.id);
      await settleStub(outcome.kind, entry, outcome.payload);
      continue;
    }
    const before = JSON.stringify(actor.getSnapshot().value);
    await advanceTime();
    if (pending.size === 0 && JSON.stringify(actor.getSnapshot().value) === before) return;
  }
}

/** The first outcome `events` lists for an invoke id (a done before an error), or `done(undefined)`. */
function defaultOutcome(
  events: readonly EventObject[],
  id: string,
): { kind: 'done' | 'error'; payload: unknown } {
  const done = events.find((event) => event.type === `xstate.done.actor.${id}`);
  if (done) return { kind: 'done', payload: (done as { output?: unknown }).output };
  const error = events.find((event) => event.type === `xstate.error.actor.${id}`);
  if (error) return { kind: 'error', payload: (error as { error?: unknown }).error };
  return { kind: 'done', payload: undefined };
}

// `xstate.after.<delay>.<state id>`: a number of ms, or a named delay of the machine.
function resolveDelay(logic: AnyStateMachine, type: string, snapshot: AnyMachineSnapshot): number {
  const name = type.slice('xstate.after.'.length).split('.')[0] ?? '';
  if (/^\d+$/.test(name)) return Number(name);
  const delay = (logic.implementations.delays as Record<string, unknown>)[name];
  if (typeof delay === 'number') return delay;
  if (typeof delay === 'function') {
    return (delay as (args: { context: unknown; event: EventObject }) => number)({
      context: snapshot.context,
      event: { type },
    });
  }
  throw new Error(`The path waits for delay "${name}", which machine "${logic.id}" does not define`);
}
