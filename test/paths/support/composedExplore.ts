import { vi } from 'vitest';
import type { AnyMachineSnapshot, AnyStateMachine, InspectionEvent } from 'xstate';
import type { LogEvent } from '../../../index.js';
import { activeStateNodeIds } from '../../../testing/index.js';
import { type ComposedConfig, ComposedWorld } from './composedWorld.js';

/**
 * Breadth-first exploration of the composed system: a node is a sequence of driver moves, replayed on a
 * fresh agent; its key is the live machines' state values, what the world waits for, the budgets used and
 * the last turn's log shape. Every move from every new key is run (so both orders of settling two calls
 * are run wherever both wait), and every run is driven to rest and checked.
 */

interface TransitionLike {
  readonly eventType: string;
  readonly source: NodeLike;
}
interface NodeLike {
  readonly id: string;
  readonly parent?: NodeLike;
  readonly states: Readonly<Record<string, NodeLike>>;
  readonly always?: readonly TransitionLike[];
  readonly transitions: ReadonlyMap<string, readonly TransitionLike[]>;
}

/** A transition's name: source node, event (`always` for eventless), and its place among that event's branches. */
export function transitionName(transition: TransitionLike): string {
  const { source, eventType } = transition;
  const list = eventType === '' ? source.always : source.transitions.get(eventType);
  return `${source.id} —${eventType === '' ? 'always' : eventType}→ #${list?.indexOf(transition) ?? -1}`;
}

/** Every transition of a machine, named as `transitionName` names a taken one. */
export function allTransitionNames(machine: AnyStateMachine): string[] {
  const names: string[] = [];
  const walk = (node: NodeLike): void => {
    for (const transition of node.always ?? []) names.push(transitionName(transition));
    for (const list of node.transitions.values())
      for (const transition of list) names.push(transitionName(transition));
    for (const child of Object.values(node.states)) walk(child);
  };
  walk(machine.root as unknown as NodeLike);
  return names;
}

/** What inspection saw across every run: reached state nodes and taken transitions, per machine id. */
export class CompositionCoverage {
  readonly states = new Map<string, Set<string>>();
  readonly transitions = new Map<string, Set<string>>();
  private readonly seenValues = new Set<string>();

  observe = (event: InspectionEvent): void => {
    if (event.type !== '@xstate.snapshot' && event.type !== '@xstate.microstep') return;
    const snapshot = event.snapshot as AnyMachineSnapshot;
    const machine = (snapshot as { machine?: AnyStateMachine }).machine;
    if (machine === undefined || (snapshot.status !== 'active' && snapshot.status !== 'done')) return;
    const id = machine.id;
    const valueKey = `${id}:${JSON.stringify(snapshot.value)}`;
    if (!this.seenValues.has(valueKey)) {
      this.seenValues.add(valueKey);
      const states = this.states.get(id) ?? new Set<string>();
      for (const node of activeStateNodeIds(machine, snapshot.value)) states.add(node);
      this.states.set(id, states);
    }
    if (event.type === '@xstate.microstep') {
      // A transient state shows in no snapshot: it was reached if a transition left it.
      const taken = this.transitions.get(id) ?? new Set<string>();
      const states = this.states.get(id) ?? new Set<string>();
      for (const transition of event._transitions as unknown as TransitionLike[]) {
        taken.add(transitionName(transition));
        for (let node: NodeLike | undefined = transition.source; node !== undefined; node = node.parent) {
          states.add(node.id);
        }
      }
      this.transitions.set(id, taken);
      this.states.set(id, states);
    }
  };
}

/** One executed path: its moves, its key, the moves open at its end, and what the check found. */
export interface ComposedRun {
  readonly moves: readonly string[];
  readonly key: string;
  readonly next: readonly string[];
  /** Whether it was driven to rest and checked (a new key, or a completion order). */
  readonly checked: boolean;
  readonly violations: readonly string[];
  /** The log once driven to rest (empty when not checked). */
  readonly events: readonly LogEvent[];
}

export interface Exploration {
  readonly config: ComposedConfig;
  /** Distinct keys reached: one path each, its shortest, driven to rest and checked. */
  readonly keys: number;
  /** Paths driven to rest and checked: the keys' paths plus every completion-order path. */
  readonly checked: number;
  /** Moves replayed to find out where they lead (checked or not). */
  readonly replayed: number;
  readonly failures: readonly ComposedRun[];
  /** For two parallel calls both waiting: `phaseOfCall0|phaseOfCall1` → which call was settled first (`0`/`1`). */
  readonly orders: ReadonlyMap<string, ReadonlySet<string>>;
  readonly longest: number;
}

const timers = () => vi.getTimerCount() > 0;
const advance = (): boolean => {
  if (vi.getTimerCount() === 0) return false;
  vi.advanceTimersToNextTimer();
  return true;
};

/**
 * Replays `moves` on a fresh agent (after its first `followup`) and records the key and the moves open there;
 * then, if `check(key, ordered)` says so, drives it to rest and checks its log. `ordered`: the last move
 * settled one of two parallel calls while the other waited.
 */
export async function runComposedPath(
  config: ComposedConfig,
  moves: readonly string[],
  coverage: CompositionCoverage,
  orders: Map<string, Set<string>>,
  check: (key: string, ordered: boolean) => boolean,
  orderDepth = Number.POSITIVE_INFINITY,
): Promise<ComposedRun> {
  vi.clearAllTimers();
  const world = new ComposedWorld(config, coverage.observe);
  // A warning XState prints (an event to a stopped actor, a builtin in a custom action) belongs to this path.
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    world.surprises.push(`XState warned: ${String(args[0]).slice(0, 120)}`);
  };
  try {
    await world.settle();
    world.apply('followup');
    await world.settle();
    let ordered = false;
    for (const [index, move] of moves.entries()) {
      // Orders are recorded within the depth, where every move is tried.
      ordered = index < orderDepth && recordOrder(world, move, orders);
      if (move === 'time') advance();
      else world.apply(move);
      await world.settle();
    }
    const waiting = world.waits.map((wait) => `${wait.kind}@${wait.owner.replace(/^r\d+/, '')}`).sort();
    const key = JSON.stringify([world.machineStates(), waiting, world.used, timers(), world.logShape()]);
    const next = world.moves(timers());
    if (!check(key, ordered)) return { moves, key, next, checked: false, violations: [], events: [] };
    let violations: string[];
    try {
      await world.driveToRest(advance);
      violations = world.violations();
    } catch (error) {
      violations = [...world.surprises, `did not come to rest: ${(error as Error).message}`];
    }
    world.notifications.dispose();
    return { moves, key, next, checked: true, violations, events: world.events };
  } finally {
    console.warn = warn;
  }
}

// Two calls of one parallel answer both waiting: which one this move settles first, and in which phases.
function recordOrder(world: ComposedWorld, move: string, orders: Map<string, Set<string>>): boolean {
  const at = move.indexOf('@');
  if (at < 0) return false;
  const owner = move.slice(at + 1, move.lastIndexOf(':'));
  const call = /^(r\d+)c([01])$/.exec(owner);
  if (call === null) return false;
  const other = `${call[1]}c${call[2] === '0' ? '1' : '0'}`;
  const mine = world.waits.filter((wait) => wait.owner === owner && move.startsWith(`${wait.kind}@`));
  const theirs = world.waits.filter((wait) => wait.owner === other);
  for (const a of mine) {
    for (const b of theirs) {
      const pair = call[2] === '0' ? `${a.kind}|${b.kind}` : `${b.kind}|${a.kind}`;
      const seen = orders.get(pair) ?? new Set<string>();
      seen.add(call[2]!);
      orders.set(pair, seen);
    }
  }
  return mine.length > 0 && theirs.length > 0;
}

/**
 * Past the depth the driver makes no new disturbance and settles the oldest wait only (with every outcome it
 * can have), or lets time pass: the pipeline runs on to the end of the session.
 */
function pastDepth(moves: readonly string[]): string[] {
  const first = moves.find((move) => move.includes('@'));
  const oldest = first === undefined ? undefined : first.slice(0, first.lastIndexOf(':') + 1);
  return moves.filter((move) => move === 'time' || (oldest !== undefined && move.startsWith(oldest)));
}

/** Breadth-first over the composed state key, replaying every move from every new key. */
export async function exploreComposed(
  config: ComposedConfig,
  coverage: CompositionCoverage,
  maxDepth: number,
): Promise<Exploration> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  try {
    const orders = new Map<string, Set<string>>();
    const failures: ComposedRun[] = [];
    const seen = new Set<string>();
    const check = (key: string, ordered: boolean): boolean => {
      const fresh = !seen.has(key);
      seen.add(key);
      return fresh || ordered;
    };
    const root = await runComposedPath(config, [], coverage, orders, check);
    const frontier: ComposedRun[] = [root];
    let replayed = 1;
    let checked = 1;
    let longest = 0;
    if (root.violations.length > 0) failures.push(root);
    while (frontier.length > 0) {
      const node = frontier.shift()!;
      for (const move of node.next) {
        const before = seen.size;
        const run = await runComposedPath(config, [...node.moves, move], coverage, orders, check, maxDepth);
        replayed++;
        if (process.env.COMPOSED_PROGRESS && replayed % 500 === 0)
          console.log(`${config.name}: ${replayed} replayed, ${seen.size} keys, depth ${run.moves.length}`);
        if (run.checked) checked++;
        if (run.violations.length > 0) failures.push(run);
        if (seen.size > before) {
          longest = Math.max(longest, run.moves.length);
          frontier.push({
            ...run,
            events: [],
            next: run.moves.length < maxDepth ? run.next : pastDepth(run.next),
          });
        }
      }
    }
    return { config, keys: seen.size, checked, replayed, failures, orders, longest };
  } finally {
    vi.clearAllTimers();
    vi.useRealTimers();
  }
}

/** One path of the composed agent, given move by move (after the first `followup`), driven to rest and checked. */
export async function runComposedExample(
  config: ComposedConfig,
  moves: readonly string[],
): Promise<{ run: ComposedRun; coverage: CompositionCoverage }> {
  const coverage = new CompositionCoverage();
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  try {
    const run = await runComposedPath(config, moves, coverage, new Map(), () => true);
    return { run, coverage };
  } finally {
    vi.clearAllTimers();
    vi.useRealTimers();
  }
}
