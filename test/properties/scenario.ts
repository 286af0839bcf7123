import fc from 'fast-check';
import { z } from 'zod';
import { createToolRegistry } from '../../machines/toolCall/createToolRegistry.js';
import type { Seams } from '../../seams/types.js';
import { defineTool } from '../../tools/index.js';

/**
 * What one listener does: pass on, decide a variant, throw, wait then pass on, or be hostile —
 * return garbage, hang (never settle, ignoring the signal), reject only once its signal aborts, or
 * cancel the agent mid-phase. A hanging listener also asks for a cancel, so the run can end.
 */
export type Behaviour =
  | { kind: 'pass' }
  | { kind: 'decide'; variant: number }
  | { kind: 'throw' }
  | { kind: 'delay'; ms: number }
  | { kind: 'garbage' }
  | { kind: 'hang' }
  | { kind: 'rejectOnAbort' }
  | { kind: 'cancel'; keepInbox: boolean };

/** One random scenario: listener behaviour per seam, a model script with tool batches, deliveries and a cancel. */
export interface Scenario {
  readonly listeners: Readonly<Record<string, Behaviour | null>>;
  readonly script: readonly ScriptStep[];
  readonly deliveries: readonly Delivery[];
  /** Cancel after this many ms (null: never), keeping the inbox or not. */
  readonly cancel: { afterMs: number; keepInbox: boolean } | null;
  /** The agent's `maxParallelToolCalls`. */
  readonly maxParallel: number;
}
type ScriptStep =
  | { text: string; finish?: 'max-tokens' }
  | { toolCalls: { id: string; name: string; arguments: Record<string, never> }[] }
  | { error: { message: string; code: string } };
type Delivery = { kind: 'followup' | 'queue' | 'steer' | 'inject'; afterMs: number };

const behaviour = (variants: number): fc.Arbitrary<Behaviour | null> =>
  // Mostly no listener, so batches often run untouched (bodies at once); each hostile kind still shows up often.
  fc.oneof(
    { arbitrary: fc.constant(null), weight: 30 },
    fc.constant({ kind: 'pass' as const }),
    fc.nat(variants - 1).map((variant) => ({ kind: 'decide' as const, variant })),
    fc.constant({ kind: 'throw' as const }),
    fc.integer({ min: 0, max: 3 }).map((ms) => ({ kind: 'delay' as const, ms })),
    fc.constant({ kind: 'garbage' as const }),
    fc.constant({ kind: 'hang' as const }),
    fc.constant({ kind: 'rejectOnAbort' as const }),
    fc.boolean().map((keepInbox) => ({ kind: 'cancel' as const, keepInbox })),
  );

// Decision variants per seam (index = `variant`).
const text = (t: string) => [{ type: 'text' as const, text: t }];
const ctx = { content: text('ctx'), source: { kind: 'plugin' as const, plugin: 'prop' } };
export const decisions: Readonly<Record<string, readonly unknown[]>> = {
  'agent/prompt-submit': [
    { kind: 'allow', additionalContexts: [ctx] },
    { kind: 'block', reason: 'no' },
  ],
  'tools/pre-execute': [
    { kind: 'allow', additionalContexts: [ctx] },
    { kind: 'deny', reason: 'no' },
    { kind: 'ask' },
  ],
  'tools/post-execute': [
    { kind: 'accept', additionalContexts: [ctx] },
    { kind: 'block', reason: 'no' },
  ],
  'agent/request-error': [{ action: 'retry' }, { action: 'fail' }],
  'agent/turn-continuation': [
    { action: 'stop' },
    { action: 'continue', reason: { content: text('again'), source: { kind: 'user' } } },
  ],
  'agent/turn-stop': [{ action: 'stop', reason: 'enough' }, undefined],
};
export const plainSeams = ['agent/pre-step', 'agent/post-step', 'tools/execute'] as const;

/** Parallel tools (`par`, `fail`, `stuck`) and exclusive ones (`ex`, `slowEx`). */
export const parallelTools = ['par', 'fail', 'stuck'] as const;
export const exclusiveTools = ['ex', 'slowEx'] as const;
const toolNames = [...parallelTools, ...exclusiveTools] as const;
const batchOf = (names: fc.Arbitrary<string>, minLength: number) =>
  fc.array(names, { minLength, maxLength: 6 }).map((list) => ({
    toolCalls: list.map((name, i) => ({ id: `c${i}`, name, arguments: {} })),
  }));
const step: fc.Arbitrary<ScriptStep> = fc.oneof(
  fc.constant({ text: 'answer' }),
  fc.constant({ text: 'cut', finish: 'max-tokens' as const }),
  fc.constant({ error: { message: 'overloaded', code: 'RATE_LIMIT' } }),
  // All-parallel, all-exclusive and mixed batches, each drawn on purpose (see `classifyBatch`).
  batchOf(fc.constantFrom(...parallelTools), 2),
  batchOf(fc.constantFrom(...exclusiveTools), 2),
  batchOf(fc.constantFrom(...toolNames), 1),
);

/** `parallel`, `exclusive` or `mixed` for a batch of two or more calls, by the tools' concurrency. */
export function classifyBatch(names: readonly string[]): 'parallel' | 'exclusive' | 'mixed' | 'single' {
  if (names.length < 2) return 'single';
  const parallel = names.filter((name) => (parallelTools as readonly string[]).includes(name)).length;
  return parallel === names.length ? 'parallel' : parallel === 0 ? 'exclusive' : 'mixed';
}

/** The scenario arbitrary. */
export const scenario: fc.Arbitrary<Scenario> = fc.record({
  listeners: fc.record(
    Object.fromEntries([
      ...Object.entries(decisions).map(([seam, list]) => [seam, behaviour(list.length)]),
      ...plainSeams.map((seam) => [seam, behaviour(1)]),
    ]) as Record<string, fc.Arbitrary<Behaviour | null>>,
  ),
  script: fc.array(step, { minLength: 1, maxLength: 5 }),
  deliveries: fc.array(
    fc.record({
      kind: fc.constantFrom('followup', 'queue', 'steer', 'inject'),
      afterMs: fc.integer({ min: 0, max: 4 }),
    }),
    { maxLength: 4 },
  ),
  // Half the sessions are cancelled, anywhere from at once to after a batch had time to run.
  cancel: fc.option(fc.record({ afterMs: fc.integer({ min: 0, max: 20 }), keepInbox: fc.boolean() }), {
    nil: null,
    freq: 2,
  }),
  maxParallel: fc.integer({ min: 1, max: 4 }),
}) as fc.Arbitrary<Scenario>;

/** What hostile listeners and tools may do to the agent they run in. */
export interface AgentControl {
  cancel(keepInbox: boolean): void;
}

/** Cancels soon, so a hang ends through the cancel path; a disposed agent ignores it. */
function cancelSoon(control: AgentControl): void {
  setTimeout(() => control.cancel(false), 2);
}

// Never settles; with `rejectOnAbort` it rejects once its signal aborts (an already-aborted one never fires).
function hang(control: AgentControl, signal: AbortSignal | undefined, reject: boolean): Promise<never> {
  cancelSoon(control);
  return new Promise((_, fail) => {
    if (reject) signal?.addEventListener('abort', () => fail(new Error('stopped')), { once: true });
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Registers one listener per seam that has a behaviour. */
export function registerListeners(
  seams: Seams,
  listeners: Scenario['listeners'],
  control: AgentControl,
): void {
  for (const [seam, chosen] of Object.entries(listeners)) {
    if (chosen === null) continue;
    const act = async (ctx: unknown, next: () => Promise<unknown>): Promise<unknown> => {
      const signal = signalOf(ctx);
      switch (chosen.kind) {
        case 'throw':
          throw new Error(`listener on ${seam} threw`);
        case 'garbage':
          return { kind: 'nonsense', action: 42 };
        case 'hang':
          return hang(control, signal, false);
        case 'rejectOnAbort':
          return hang(control, signal, true);
        case 'cancel':
          control.cancel(chosen.keepInbox);
          return next();
        case 'delay':
          await sleep(chosen.ms);
          return next();
        case 'decide':
          return decisions[seam]?.[chosen.variant];
        default:
          return next();
      }
    };
    const listener =
      seam === 'agent/turn-stop' || seam === 'agent/pre-step' || seam === 'agent/post-step'
        ? (ctx: unknown) => act(ctx, async () => undefined)
        : (ctx: unknown, next: () => Promise<unknown>) => act(ctx, next);
    seams.on(seam as never, listener as never, { name: `prop:${seam}` });
  }
}

// The signal of a seam context: its own, or the call's (`exec.signal`, `{ exec }.exec.signal`).
function signalOf(ctx: unknown): AbortSignal | undefined {
  const raw = ctx as { signal?: unknown; exec?: { signal?: unknown } } | undefined;
  const signal = raw?.signal ?? raw?.exec?.signal;
  return signal instanceof AbortSignal ? signal : undefined;
}

/**
 * `par` (parallel, short sleep), `fail` (parallel, throws), `stuck` (parallel, ignores its signal
 * and never settles: ended by the cancel grace), `ex` (exclusive) and `slowEx` (exclusive, sleeps).
 * Every tool states its concurrency; `live` counts parallel bodies running at once.
 */
export function createPropertyTools(control: AgentControl, live: { now: number; most: number }) {
  const tools = createToolRegistry();
  const args = z.object({});
  const running = async <T>(work: () => Promise<T>): Promise<T> => {
    live.most = Math.max(live.most, ++live.now);
    try {
      return await work();
    } finally {
      live.now--;
    }
  };
  tools.register(
    defineTool({
      name: 'par',
      description: 'p',
      parameters: args,
      concurrency: 'parallel',
      execute: () => running(() => sleep(3).then(() => 'p')),
    }),
  );
  tools.register(
    defineTool({
      name: 'fail',
      description: 'f',
      parameters: args,
      concurrency: 'parallel',
      execute: () =>
        running(async () => {
          await sleep(0);
          throw new Error('tool failed');
        }),
    }),
  );
  tools.register(
    defineTool({
      name: 'stuck',
      description: 's',
      parameters: args,
      concurrency: 'parallel',
      execute: () => {
        cancelSoon(control);
        return new Promise<never>(() => {});
      },
    }),
  );
  tools.register(
    defineTool({
      name: 'ex',
      description: 'e',
      parameters: args,
      execute: () => 'e',
      concurrency: 'exclusive',
    }),
  );
  tools.register(
    defineTool({
      name: 'slowEx',
      description: 'se',
      parameters: args,
      concurrency: 'exclusive',
      execute: () => sleep(1).then(() => 'se'),
    }),
  );
  return tools;
}

/** Runs the deliveries and the cancel on their timers; resolves when all were made. */
export async function deliver(
  agent: {
    followup(t: string): string;
    queue(t: string): string;
    steer(t: string): string;
    inject(t: string): void;
    cancel(c?: never, o?: { keepInbox?: boolean }): void;
  },
  scenario: Scenario,
): Promise<void> {
  const actions = scenario.deliveries.map(async (delivery, i) => {
    await sleep(delivery.afterMs);
    agent[delivery.kind](`${delivery.kind} ${i}`);
  });
  if (scenario.cancel) {
    const { afterMs, keepInbox } = scenario.cancel;
    actions.push(sleep(afterMs).then(() => agent.cancel(undefined, { keepInbox })));
  }
  await Promise.all(actions);
}
