import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolRegistryCore, defineTool } from '../../../tools/index.js';
import { createTestAgent, reasons, sleep } from './helpers.js';

const GRACE_MS = 1_000;

type Hostile = 'rejects on abort' | 'never settles';
const hostile = (kind: Hostile, signal: AbortSignal): Promise<never> =>
  new Promise((_, reject) => {
    if (kind === 'rejects on abort')
      signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
  });

describe('cancel with hostile listeners on parallel calls', () => {
  it.each([
    ['tools/pre-execute', 'rejects on abort'],
    ['tools/pre-execute', 'never settles'],
    ['tools/post-execute', 'rejects on abort'],
    ['tools/post-execute', 'never settles'],
  ] as const)(
    'R01 three parallel calls, a %s listener that %s: the turn ends aborted within cancelGraceMs, one result per call, dispose() resolves',
    async (seam, kind) => {
      const tools = createToolRegistryCore();
      let bodies = 0;
      tools.register(
        defineTool({
          name: 'quick',
          description: 'returns at once',
          parameters: z.object({}),
          concurrency: 'parallel',
          execute: () => `body ${++bodies}`,
        }),
      );
      let entered = 0;
      const calls = ['c1', 'c2', 'c3'].map((id) => ({ id, name: 'quick', arguments: {} }));
      const run = createTestAgent({
        script: [{ toolCalls: calls }, { text: 'never asked' }],
        tools,
        agent: { cancelGraceMs: GRACE_MS },
        register: (seams) => {
          if (seam === 'tools/pre-execute')
            seams.on('tools/pre-execute', (exec) => {
              entered++;
              return hostile(kind, exec.signal);
            });
          else
            seams.on('tools/post-execute', ({ exec }) => {
              entered++;
              return hostile(kind, exec.signal);
            });
        },
      });
      run.agent.followup('go');
      while (entered === 0) await sleep(5);
      // Let every body that can run finish, so later calls settle and wait for their commit.
      await sleep(50);
      const cancelled = performance.now();
      run.agent.cancel();
      await run.agent.whenIdle();
      const elapsed = performance.now() - cancelled;
      // One grace for the whole cancel (plus scheduling slack), not one per call and not forever.
      expect(elapsed).toBeLessThan(GRACE_MS * 1.5);
      expect(reasons(run.agent.log.events)).toEqual([{ kind: 'aborted' }]);
      const results = run.eventData<{ callId: string }>('tool/result').map((r) => r.callId);
      expect(results).toEqual(['c1', 'c2', 'c3']);
      run.expectInvariants();
      await run.agent.dispose();
    },
    15_000,
  );
});
