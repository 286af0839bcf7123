import fc from 'fast-check';
import {
  type Agent,
  createAgent,
  createSeams,
  createToolRegistry,
  defineTool,
  type LogEvent,
  type ModelAdapter,
  type ScriptStep,
  type Seams,
  scriptedModel,
  seamModes,
  seamNames,
} from 'seamchart';
import { z } from 'zod';
import { decisions, plainSeams } from './scenario.js';

/**
 * E03's scenarios (docs/testing.md "Property runs"): every moment at which something reaches the
 * agent from outside is defined by what the agent did, never by a clock, and is met at a quiet
 * point (`OutsideWorld`), so a run with extra pass-through listeners meets the same moments. A
 * moment is the append of the log event with a given `seq`, the k-th model request, or a tool
 * body going on (its arguments say what it does).
 */

/** What the outside world does at a moment. */
export type Act = 'cancel' | 'cancelKeep' | 'steer' | 'inject' | 'followup' | 'queue';
const acts: readonly Act[] = ['cancel', 'cancelKeep', 'steer', 'inject', 'followup', 'queue'];

/** A scenario listener on a decision seam: pass on (at once or after a tick), decide a variant, throw. */
export type Behaviour =
  | { kind: 'pass' }
  | { kind: 'tick' }
  | { kind: 'decide'; variant: number }
  | { kind: 'throw' };

/**
 * `par` (parallel), `fail` (parallel, throws), `hang` (parallel: cancels the agent at a quiet point,
 * then waits for its signal), `ex` (exclusive), `exFail` (exclusive, throws). Each body makes its
 * `act` at a quiet point, then waits `ticks` more quiet points.
 */
export const parallelTools = ['par', 'fail', 'hang'] as const;
export const exclusiveTools = ['ex', 'exFail'] as const;
type ToolArgs = { act?: Act | undefined; ticks: number };
interface Call {
  id: string;
  name: string;
  arguments: ToolArgs;
}
type Step =
  | { text: string; finish?: 'max-tokens' }
  | { toolCalls: Call[] }
  | { error: { message: string; code: string } }
  | { hang: true };

export interface Scenario {
  /** One listener (or none) per decision seam, the same in both runs. */
  readonly listeners: Readonly<Record<string, Behaviour | null>>;
  readonly script: readonly Step[];
  /** Acts made by a log subscriber when the event with this `seq` is appended. */
  readonly atSeq: readonly { seq: number; act: Act }[];
  /** Acts made when the model receives its request number `index` (0-based), before it answers. */
  readonly atRequest: readonly { index: number; act: Act }[];
  readonly maxParallel: number;
}

/** The extra listeners of the second run: how many per seam, outermost or innermost, sync or async. */
export interface PassThrough {
  readonly perSeam: 1 | 2;
  readonly prepend: boolean;
  readonly flavour: 'sync' | 'async';
}

// The scenario's decision variants per seam (index = `variant`) and its pass-or-throw seams, as the agent property's.

const behaviour = (variants: number): fc.Arbitrary<Behaviour | null> =>
  fc.oneof(
    { arbitrary: fc.constant(null), weight: 8 },
    fc.constant({ kind: 'pass' as const }),
    fc.constant({ kind: 'tick' as const }),
    fc.nat(variants - 1).map((variant) => ({ kind: 'decide' as const, variant })),
    fc.constant({ kind: 'throw' as const }),
  );

// Steers and injections weigh more: many land where a cancel or the turn's end discards them.
const act: fc.Arbitrary<Act> = fc.oneof(
  { arbitrary: fc.constant('cancel' as const), weight: 2 },
  { arbitrary: fc.constant('cancelKeep' as const), weight: 1 },
  { arbitrary: fc.constant('steer' as const), weight: 3 },
  { arbitrary: fc.constant('inject' as const), weight: 2 },
  { arbitrary: fc.constant('followup' as const), weight: 1 },
  { arbitrary: fc.constant('queue' as const), weight: 1 },
);
const toolArgs: fc.Arbitrary<ToolArgs> = fc.record(
  { act: fc.option(act, { nil: undefined, freq: 3 }), ticks: fc.integer({ min: 0, max: 3 }) },
  { requiredKeys: ['ticks'] },
);
const batchOf = (names: fc.Arbitrary<string>, minLength: number): fc.Arbitrary<Step> =>
  fc.array(fc.tuple(names, toolArgs), { minLength, maxLength: 4 }).map((list) => ({
    toolCalls: list.map(([name, { act, ticks }], i) =>
      // `undefined` is not JSON: an absent act is left out.
      ({ id: `c${i}`, name, arguments: act === undefined ? { ticks } : { act, ticks } }),
    ),
  }));
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ text: 'answer' }),
  fc.constant({ text: 'cut', finish: 'max-tokens' as const }),
  fc.constant({ error: { message: 'overloaded', code: 'RATE_LIMIT' } }),
  fc.constant({ hang: true as const }),
  // All-parallel, all-exclusive and mixed batches, each drawn on purpose.
  batchOf(fc.constantFrom(...parallelTools), 2),
  batchOf(fc.constantFrom(...exclusiveTools), 2),
  batchOf(fc.constantFrom(...parallelTools, ...exclusiveTools), 1),
);

export const scenario: fc.Arbitrary<Scenario> = fc.record({
  listeners: fc.record(
    Object.fromEntries([
      ...Object.entries(decisions).map(([seam, list]) => [seam, behaviour(list.length)]),
      ...plainSeams.map((seam) => [seam, behaviour(1)]),
    ]) as Record<string, fc.Arbitrary<Behaviour | null>>,
  ),
  script: fc.array(step, { minLength: 1, maxLength: 5 }),
  atSeq: fc.array(fc.record({ seq: fc.integer({ min: 1, max: 40 }), act }), { maxLength: 3 }),
  atRequest: fc.array(fc.record({ index: fc.integer({ min: 0, max: 5 }), act }), { maxLength: 2 }),
  maxParallel: fc.integer({ min: 1, max: 3 }),
});

export const passThrough: fc.Arbitrary<PassThrough> = fc.record({
  perSeam: fc.constantFrom(1 as const, 2 as const),
  prepend: fc.boolean(),
  flavour: fc.constantFrom('sync' as const, 'async' as const),
});

/** `parallel`, `exclusive` or `mixed` for a batch of two or more calls. */
export function classifyBatch(names: readonly string[]): 'parallel' | 'exclusive' | 'mixed' | 'single' {
  if (names.length < 2) return 'single';
  const parallel = names.filter((name) => (parallelTools as readonly string[]).includes(name)).length;
  return parallel === names.length ? 'parallel' : parallel === 0 ? 'exclusive' : 'mixed';
}

const tick = async (ticks: number): Promise<void> => {
  for (let i = 0; i < ticks; i++) await Promise.resolve();
};

/** Registers the scenario's own listeners (both runs have them). */
function registerScenarioListeners(seams: Seams, listeners: Scenario['listeners']): void {
  for (const [seam, chosen] of Object.entries(listeners)) {
    if (chosen === null) continue;
    const decide = async (next: () => Promise<unknown>): Promise<unknown> => {
      switch (chosen.kind) {
        case 'throw':
          throw new Error(`listener on ${seam} threw`);
        case 'decide':
          return decisions[seam]?.[chosen.variant];
        case 'tick':
          await tick(1);
          return next();
        default:
          return next();
      }
    };
    const listener =
      seam === 'agent/turn-stop' || seam === 'agent/pre-step' || seam === 'agent/post-step'
        ? () => decide(async () => undefined)
        : (_ctx: unknown, next: () => Promise<unknown>) => decide(next);
    seams.on(seam as never, listener as never, { name: `e03:${seam}` });
  }
}

/**
 * Adds listeners that decide nothing to every seam of the catalogue and a guard: `next()` on chains
 * (waterfalls, the approval and execute onions), `undefined` on the fold and first-result seams,
 * nothing on observers. `async` ones wait a microtask first.
 */
export function addPassThroughListeners(seams: Seams, extra: PassThrough): number {
  let added = 0;
  const later = extra.flavour === 'async';
  for (const seam of seamNames) {
    const mode = seamModes[seam];
    const chain = mode === 'waterfall' || mode === 'approval' || mode === 'around';
    for (let i = 0; i < extra.perSeam; i++) {
      const listener = chain
        ? later
          ? async (_ctx: unknown, next: () => Promise<unknown>) => {
              await tick(1);
              return next();
            }
          : (_ctx: unknown, next: () => Promise<unknown>) => next()
        : later
          ? async () => {
              await tick(1);
              return undefined;
            }
          : () => undefined;
      seams.on(seam as never, listener as never, { name: `pass:${seam}:${i}`, prepend: extra.prepend });
      added++;
    }
  }
  for (let i = 0; i < extra.perSeam; i++) {
    seams.guard(() => undefined, { name: `pass:guard:${i}` });
    added++;
  }
  return added;
}

/**
 * The outside world of one run, on a clock of its own: each job (a tool body going on, the model
 * answering, an act) waits for a *quiet point* — a `setImmediate` turn, when every microtask the
 * engine and the listeners queued has run, so the agent waits on the outside world alone — and
 * each quiet point runs only the pending job with the smallest key. A run with extra listeners
 * meets the same quiet points with the same pending jobs, whatever microtasks those listeners add.
 */
class OutsideWorld {
  readonly #jobs: { key: string; run: () => void }[] = [];
  #armed = false;
  #idle: (() => void)[] = [];

  /** Resolves at the quiet point that picks this key. */
  wait(key: string): Promise<void> {
    return new Promise((resolve) => this.schedule(key, resolve));
  }

  schedule(key: string, run: () => void): void {
    this.#jobs.push({ key, run });
    this.#arm();
  }

  /** Resolves at a quiet point with no job left. */
  settled(): Promise<void> {
    return new Promise((resolve) => {
      this.#idle.push(resolve);
      this.#arm();
    });
  }

  #arm(): void {
    if (this.#armed) return;
    this.#armed = true;
    setImmediate(() => this.#turn());
  }

  #turn(): void {
    this.#armed = false;
    this.#jobs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const job = this.#jobs.shift();
    if (job !== undefined) {
      job.run();
      this.#arm();
      return;
    }
    for (const resolve of this.#idle.splice(0)) resolve();
  }
}

const pad = (n: number | undefined): string => String(n ?? 0).padStart(3, '0');

/** One run: the log, what each act did (or threw), and how the agent ended. */
export interface Run {
  readonly events: readonly LogEvent[];
  readonly acts: readonly string[];
  readonly status: string;
  readonly hung: boolean;
}

const SESSION_BOUND_MS = 10_000;

/** Runs a scenario to rest (followup, then idle with no job left, then dispose), with or without the extra listeners. */
export async function runScenario(s: Scenario, extra: PassThrough | undefined): Promise<Run> {
  const seams = createSeams({ logger: { error: () => {} } });
  registerScenarioListeners(seams, s.listeners);
  if (extra !== undefined) addPassThroughListeners(seams, extra);
  const world = new OutsideWorld();
  const done: string[] = [];
  const box: { agent?: Agent } = {};
  let made = 0;
  const perform = (where: string, what: Act): void => {
    const agent = box.agent;
    if (agent === undefined) return;
    const n = ++made;
    try {
      switch (what) {
        case 'cancel':
          agent.cancel();
          break;
        case 'cancelKeep':
          agent.cancel(undefined, { keepInbox: true });
          break;
        case 'inject':
          agent.inject(`inject ${n}`);
          break;
        default:
          agent[what](`${what} ${n}`);
      }
      done.push(`${where}: ${what}`);
    } catch (error) {
      done.push(`${where}: ${what} threw ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const agent = createAgent({
    id: 'e03',
    seams,
    tools: createTools(world, perform),
    model: actingModel(world, s.script, s.atRequest, perform),
    logger: { error: () => {} },
    // Bodies end on the world's clock; a grace that ran out would be a wall-clock race.
    cancelGraceMs: 5_000,
    maxRequestRetries: 1,
    maxStepsPerTurn: 4,
    maxParallelToolCalls: s.maxParallel,
  });
  box.agent = agent;
  // Acts at a log position are made at the next quiet point, never from inside the append.
  agent.log.subscribe((event) => {
    for (const [i, moment] of s.atSeq.entries())
      if (moment.seq === event.seq)
        world.schedule(`1:${pad(event.seq)}:${i}`, () => perform(`seq ${event.seq}`, moment.act));
  });
  const session = (async () => {
    agent.followup('start');
    for (;;) {
      await agent.whenIdle();
      await world.settled();
      if (agent.status !== 'running') break;
    }
    await agent.dispose();
    // Acts due at events the dispose wrote still happen (and are refused or ignored), in both runs.
    await world.settled();
  })();
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), SESSION_BOUND_MS);
  });
  const outcome = await Promise.race([session.then(() => 'ended' as const), bound]);
  clearTimeout(timer);
  return { events: [...agent.log.events], acts: done, status: agent.status, hung: outcome === 'hung' };
}

/**
 * The scripted model, answering each request at a quiet point; the acts the scenario names for a
 * request are made there first, and a `hang` step (a request that waits for its signal) is cancelled.
 */
function actingModel(
  world: OutsideWorld,
  script: Scenario['script'],
  atRequest: Scenario['atRequest'],
  perform: (where: string, what: Act) => void,
): ModelAdapter {
  const inner = scriptedModel(script as ScriptStep[]);
  let count = 0;
  return {
    async request(request) {
      const index = count++;
      // One act per quiet point: two acts made back to back would race the engine between them.
      let round = 0;
      await world.wait(`3:${pad(index)}:${round++}`);
      for (const moment of atRequest) {
        if (moment.index !== index) continue;
        perform(`request ${index}`, moment.act);
        await world.wait(`3:${pad(index)}:${round++}`);
      }
      // A hanging request is cancelled at the next quiet point, unless something cancelled it already
      // (the scripted model then answers with the abort).
      if (script[index] !== undefined && 'hang' in script[index]) {
        await world.wait(`3:${pad(index)}:${round++}`);
        if (!request.signal.aborted) perform(`request ${index} hangs`, 'cancel');
      }
      return inner.request(request);
    },
  };
}

/**
 * A body makes its act at its first quiet point, then waits `ticks` more quiet points (0: it ends
 * within the engine's own microtasks); `hang` then cancels the agent and waits for its signal.
 */
function createTools(world: OutsideWorld, perform: (where: string, what: Act) => void) {
  const tools = createToolRegistry();
  const parameters = z.object({ act: z.enum(acts as [Act, ...Act[]]).optional(), ticks: z.number() });
  const body =
    (name: string, end: (key: string, signal: AbortSignal) => Promise<string>) =>
    async (args: ToolArgs, exec: { callId: string; turn?: number; step?: number; signal: AbortSignal }) => {
      const key = `2:${pad(exec.turn)}:${pad(exec.step)}:${exec.callId}`;
      let round = 0;
      if (args.act !== undefined) {
        await world.wait(`${key}:${round++}`);
        perform(`${name} ${exec.turn}/${exec.step}/${exec.callId}`, args.act);
      }
      for (let i = 0; i < args.ticks; i++) await world.wait(`${key}:${round++}`);
      return end(`${key}:${round}`, exec.signal);
    };
  const fail = async (): Promise<string> => {
    throw new Error('tool failed');
  };
  const hang = async (key: string, signal: AbortSignal): Promise<string> => {
    await world.wait(key);
    if (!signal.aborted) perform('hang', 'cancel');
    return new Promise((_, reject) => {
      if (signal.aborted) reject(new Error('stopped'));
      else signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
    });
  };
  const define = (name: string, concurrency: 'parallel' | 'exclusive', end: Parameters<typeof body>[1]) =>
    tools.register(
      defineTool({ name, description: name, parameters, concurrency, execute: body(name, end) as never }),
    );
  define('par', 'parallel', async () => 'p');
  define('fail', 'parallel', fail);
  define('hang', 'parallel', hang);
  define('ex', 'exclusive', async () => 'e');
  define('exFail', 'exclusive', fail);
  return tools;
}

/** The log as compared: `time` dropped, `durationMs` dropped at any depth, `seam/decided` events left out. */
export function comparable(events: readonly LogEvent[]): unknown[] {
  return events
    .filter((event) => event.type !== 'seam/decided')
    .map(({ seq, type, data }) => ({
      seq,
      type,
      data: withoutDuration(data),
    }));
}

function withoutDuration(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDuration);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'durationMs')
      .map(([key, inner]) => [key, withoutDuration(inner)]),
  );
}

/** The first index at which two comparable logs differ (`undefined` when equal), with both entries. */
export function firstDifference(
  a: readonly unknown[],
  b: readonly unknown[],
): { index: number; without: unknown; with: unknown } | undefined {
  const length = Math.max(a.length, b.length);
  for (let index = 0; index < length; index++) {
    if (JSON.stringify(a[index]) !== JSON.stringify(b[index]))
      return { index, without: a[index], with: b[index] };
  }
  return undefined;
}
