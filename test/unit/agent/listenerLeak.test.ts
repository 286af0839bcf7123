import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolRegistryCore, defineTool } from '../../../tools/index.js';
import { createTestAgent, reasons, sleep } from './helpers.js';

// The setup file fails any test during which Node printed MaxListenersExceededWarning (R04).
describe('abort-signal listeners', () => {
  it('R04 1,000 model requests in one turn raise no MaxListenersExceededWarning', async () => {
    const tools = createToolRegistryCore();
    tools.register(
      defineTool({ name: 'tick', description: 'returns', parameters: z.object({}), execute: () => 'ok' }),
    );
    const steps = Array.from({ length: 999 }, (_, i) => ({
      toolCalls: [{ id: `c${i}`, name: 'tick', arguments: {} }],
    }));
    // Past the default step cap of 100 (model-io.md), which would end the turn max-steps.
    const run = createTestAgent({
      script: [...steps, { text: 'done' }],
      tools,
      agent: { maxStepsPerTurn: 1000 },
    });
    run.agent.followup('go');
    await run.agent.whenIdle();
    expect(run.model.requests).toHaveLength(1000);
    expect(reasons(run.agent.log.events)).toEqual([{ kind: 'completed' }]);
    run.expectInvariants();
    await run.agent.dispose();
  }, 60_000);

  it('R04 a batch of 64 parallel slow calls raises no MaxListenersExceededWarning', async () => {
    const tools = createToolRegistryCore();
    let live = 0;
    let most = 0;
    tools.register(
      defineTool({
        name: 'slow',
        description: 'waits',
        parameters: z.object({}),
        concurrency: 'parallel',
        execute: async () => {
          most = Math.max(most, ++live);
          await sleep(20);
          live--;
          return 'ok';
        },
      }),
    );
    const calls = Array.from({ length: 64 }, (_, i) => ({ id: `c${i}`, name: 'slow', arguments: {} }));
    const run = createTestAgent({
      script: [{ toolCalls: calls }, { text: 'done' }],
      tools,
      agent: { maxParallelToolCalls: 64 },
    });
    run.agent.followup('go');
    await run.agent.whenIdle();
    expect(most).toBe(64);
    expect(run.eventData('tool/result')).toHaveLength(64);
    run.expectInvariants();
    await run.agent.dispose();
  });
});
