import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../machines/agent/createAgent.js';
import { scriptedModel } from '../../model/index.js';
import { createSeams } from '../../seams/index.js';
import { checkInvariants, checkLedger, formatViolation } from '../../session/index.js';
import { recordNotifications } from '../../testing/index.js';
import { createPropertyTools, deliver, registerListeners, type Scenario, scenario } from './scenario.js';

// 200 runs in CI; SEAMCHART_PROPERTY_RUNS=10000 for a long local soak (see docs/testing.md).
const numRuns = Number(process.env.SEAMCHART_PROPERTY_RUNS ?? 200);

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
beforeAll(() => void process.on('unhandledRejection', onUnhandled));
afterAll(() => void process.off('unhandledRejection', onUnhandled));

/** One agent session for a scenario: returns every broken invariant, ledger entry and escaped rejection. */
async function runScenario(s: Scenario): Promise<string[]> {
  const seams = createSeams({ logger: { error: () => {} } });
  const notifications = recordNotifications(seams);
  registerListeners(seams, s.listeners);
  const agent = createAgent({
    seams,
    tools: createPropertyTools(),
    model: scriptedModel([...s.script] as never),
    logger: { error: () => {} },
    cancelGraceMs: 20,
    maxRequestRetries: 1,
  });
  const before = unhandled.length;
  agent.followup('start');
  await deliver(agent as never, s);
  await agent.whenIdle();
  await agent.dispose();
  // Let anything that escaped surface as an unhandled rejection before judging the run.
  await new Promise((resolve) => setTimeout(resolve, 0));
  notifications.dispose();
  return [
    ...checkInvariants(agent.log.events).map(formatViolation),
    ...checkLedger(notifications.events).map(formatViolation),
    ...unhandled.slice(before).map((reason) => `unhandled rejection: ${String(reason)}`),
  ];
}

describe('random agent sessions', () => {
  it(
    `keep every invariant and the inbox ledger, with no unhandled rejection (${numRuns} runs)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          expect(await runScenario(s)).toEqual([]);
        }),
        { numRuns },
      );
    },
    Math.max(60_000, numRuns * 200),
  );
});
