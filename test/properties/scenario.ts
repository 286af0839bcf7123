import fc from 'fast-check';
import { z } from 'zod';
import { createToolRegistry } from '../../machines/toolCall/createToolRegistry.js';
import type { Seams } from '../../seams/types.js';
import { defineTool } from '../../tools/index.js';

/** What one listener does: pass on, decide a variant, throw, or wait then pass on. */
export type Behaviour =
  | { kind: 'pass' }
  | { kind: 'decide'; variant: number }
  | { kind: 'throw' }
  | { kind: 'delay'; ms: number };

/** One random scenario: listener behaviour per seam, a model script with tool batches, deliveries and a cancel. */
export interface Scenario {
  readonly listeners: Readonly<Record<string, Behaviour | null>>;
  readonly script: readonly ScriptStep[];
  readonly deliveries: readonly Delivery[];
  /** Cancel after this many ms (null: never), keeping the inbox or not. */
  readonly cancel: { afterMs: number; keepInbox: boolean } | null;
}
type ScriptStep =
  | { text: string; finish?: 'max-tokens' }
  | { toolCalls: { id: string; name: string; arguments: Record<string, never> }[] }
  | { error: { message: string; code: string } };
type Delivery = { kind: 'followup' | 'queue' | 'steer' | 'inject'; afterMs: number };

const behaviour = (variants: number): fc.Arbitrary<Behaviour | null> =>
  fc.oneof(
    fc.constant(null),
    fc.constant({ kind: 'pass' as const }),
    fc.nat(variants - 1).map((variant) => ({ kind: 'decide' as const, variant })),
    fc.constant({ kind: 'throw' as const }),
    fc.integer({ min: 0, max: 3 }).map((ms) => ({ kind: 'delay' as const, ms })),
  );

// Decision variants per seam (index = `variant`).
const text = (t: string) => [{ type: 'text' as const, text: t }];
const ctx = { content: text('ctx'), source: { kind: 'plugin' as const, plugin: 'prop' } };
const decisions: Record<string, readonly unknown[]> = {
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
const plainSeams = ['agent/pre-step', 'agent/post-step', 'tools/execute'] as const;

const toolNames = ['par', 'ex', 'fail'] as const;
const step: fc.Arbitrary<ScriptStep> = fc.oneof(
  fc.constant({ text: 'answer' }),
  fc.constant({ text: 'cut', finish: 'max-tokens' as const }),
  fc.constant({ error: { message: 'overloaded', code: 'RATE_LIMIT' } }),
  fc.array(fc.constantFrom(...toolNames), { minLength: 1, maxLength: 4 }).map((names) => ({
    toolCalls: names.map((name, i) => ({ id: `c${i}`, name, arguments: {} })),
  })),
);

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
  cancel: fc.option(fc.record({ afterMs: fc.integer({ min: 0, max: 6 }), keepInbox: fc.boolean() }), {
    nil: null,
  }),
}) as fc.Arbitrary<Scenario>;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Registers one listener per seam that has a behaviour. */
export function registerListeners(seams: Seams, listeners: Scenario['listeners']): void {
  for (const [seam, chosen] of Object.entries(listeners)) {
    if (chosen === null) continue;
    const act = async (next: () => Promise<unknown>): Promise<unknown> => {
      if (chosen.kind === 'throw') throw new Error(`listener on ${seam} threw`);
      if (chosen.kind === 'delay') await sleep(chosen.ms);
      if (chosen.kind === 'decide') return decisions[seam]?.[chosen.variant];
      return next();
    };
    const listener =
      seam === 'agent/turn-stop' || seam === 'agent/pre-step' || seam === 'agent/post-step'
        ? () => act(async () => undefined)
        : (_ctx: unknown, next: () => Promise<unknown>) => act(next);
    seams.on(seam as never, listener as never, { name: `prop:${seam}` });
  }
}

/** `par` (parallel), `ex` (exclusive) and `fail` (a throwing parallel body). */
export function createPropertyTools() {
  const tools = createToolRegistry();
  const args = z.object({});
  tools.register(
    defineTool({
      name: 'par',
      description: 'p',
      parameters: args,
      execute: async () => {
        await sleep(1);
        return 'p';
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
      name: 'fail',
      description: 'f',
      parameters: args,
      execute: () => {
        throw new Error('tool failed');
      },
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
