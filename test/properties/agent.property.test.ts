import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../machines/agent/createAgent.js';
import { scriptedModel } from '../../model/index.js';
import { createSeams } from '../../seams/index.js';
import { checkInvariants, checkLedger, formatViolation } from '../../session/index.js';
import { recordNotifications } from '../../testing/index.js';
import {
  type AgentControl,
  classifyBatch,
  createPropertyTools,
  deliver,
  registerListeners,
  type Scenario,
  scenario,
} from './scenario.js';

// 200 runs in CI; SEAMCHART_PROPERTY_RUNS=10000 for a long local soak (see docs/testing.md).
const numRuns = Number(process.env.SEAMCHART_PROPERTY_RUNS ?? 200);
const CANCEL_GRACE_MS = 20;
// However hostile the listeners, a session ends: its last cancel plus a few graces, with room for a loaded CI.
const SESSION_BOUND_MS = 10_000;

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
beforeAll(() => void process.on('unhandledRejection', onUnhandled));
afterAll(() => void process.off('unhandledRejection', onUnhandled));

/** What the generated sessions exercised, counted across all runs. */
const seen = { parallel: 0, exclusive: 0, mixed: 0, single: 0, concurrentBodies: 0, agents: 0, hostile: 0 };

function countScenario(s: Scenario): void {
  for (const step of s.script) {
    if ('toolCalls' in step) seen[classifyBatch(step.toolCalls.map((call) => call.name))]++;
  }
  const hostile = Object.values(s.listeners).filter(
    (b) => b !== null && ['garbage', 'hang', 'rejectOnAbort', 'cancel', 'throw'].includes(b.kind),
  );
  if (hostile.length > 0) seen.hostile++;
}

/** One agent session for a scenario: returns every broken invariant, ledger entry, escaped rejection and hang. */
async function runScenario(s: Scenario, name: string): Promise<string[]> {
  countScenario(s);
  const seams = createSeams({ logger: { error: () => {} } });
  const notifications = recordNotifications(seams);
  let agent: ReturnType<typeof createAgent> | undefined;
  const control: AgentControl = {
    cancel: (keepInbox) => {
      if (agent && agent.status !== 'disposed') agent.cancel(undefined, { keepInbox });
    },
  };
  registerListeners(seams, s.listeners, control);
  const live = { now: 0, most: 0 };
  agent = createAgent({
    id: name,
    seams,
    tools: createPropertyTools(control, live),
    model: scriptedModel([...s.script] as never),
    logger: { error: () => {} },
    cancelGraceMs: CANCEL_GRACE_MS,
    maxRequestRetries: 1,
    maxParallelToolCalls: s.maxParallel,
  });
  const before = unhandled.length;
  const session = (async () => {
    agent.followup('start');
    await deliver(agent as never, s);
    await agent.whenIdle();
    await agent.dispose();
  })();
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), SESSION_BOUND_MS);
  });
  const outcome = await Promise.race([session.then(() => 'ended' as const), bound]);
  clearTimeout(timer);
  // Let anything that escaped surface as an unhandled rejection before judging the run.
  await new Promise((resolve) => setTimeout(resolve, 0));
  notifications.dispose();
  if (live.most > 1) seen.concurrentBodies++;
  return [
    ...(outcome === 'hung'
      ? [`${name}: did not become idle and disposed within ${SESSION_BOUND_MS} ms`]
      : []),
    ...checkInvariants(agent.log.events).map((v) => `${name}: ${formatViolation(v)}`),
    ...checkLedger(notifications.events).map((v) => `${name}: ${formatViolation(v)}`),
    ...unhandled.slice(before).map((reason) => `${name}: unhandled rejection: ${String(reason)}`),
  ];
}

describe('random agent sessions', () => {
  it(
    `R06 keep every invariant and the inbox ledger, end, and leak no rejection, with hostile listeners, parallel/exclusive/mixed batches and 1–3 agents at once (${numRuns} runs)`,
    async () => {
      const started = performance.now();
      await fc.assert(
        fc.asyncProperty(fc.array(scenario, { minLength: 1, maxLength: 3 }), async (sessions) => {
          seen.agents += sessions.length;
          const results = await Promise.all(sessions.map((s, i) => runScenario(s, `agent-${i}`)));
          expect(results.flat()).toEqual([]);
        }),
        { numRuns },
      );
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`R06: ${numRuns} runs in ${seconds} s; generated ${JSON.stringify(seen)}`);
      // The generator really produced every kind of batch, hostile listeners and bodies running at once.
      for (const kind of ['parallel', 'exclusive', 'mixed'] as const)
        expect(seen[kind]).toBeGreaterThan(numRuns / 10);
      expect(seen.hostile).toBeGreaterThan(numRuns / 2);
      expect(seen.concurrentBodies).toBeGreaterThan(numRuns / 20);
      expect(seen.agents).toBeGreaterThan(numRuns * 1.5);
    },
    Math.max(120_000, numRuns * 400),
  );
});
