// E03 found it (engine.md contract 3): in a parallel group, whether a settled call's `tool/result`
// came before or after a later call's `tool/call` depended on how long the policy lane and the review
// took, so a listener that decides nothing moved those lines. Fixed in the toolBatch chart: a free slot
// is filled before the cursor commits (decision 171), so starts and commits alternate by count alone.

import {
  createAgent,
  createSeams,
  createToolRegistry,
  defineTool,
  type LogEvent,
  type Seams,
  scriptedModel,
} from 'seamchart';
import { checkInvariants, formatViolation } from 'seamchart/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

const quiet = { error: () => {} };

/** Three parallel calls of a tool whose body answers at once; returns the batch's tool lines. */
async function batchLines(setup: (seams: Seams) => void, maxParallelToolCalls: number): Promise<string[]> {
  const seams = createSeams({ logger: quiet });
  setup(seams);
  const tools = createToolRegistry();
  tools.register(
    defineTool({
      name: 'par',
      description: 'p',
      parameters: z.object({}),
      concurrency: 'parallel',
      execute: () => 'p',
    }),
  );
  const call = (id: string) => ({ id, name: 'par', arguments: {} });
  const agent = createAgent({
    seams,
    tools,
    model: scriptedModel([{ toolCalls: [call('c0'), call('c1'), call('c2')] }, { text: 'done' }]),
    logger: quiet,
    maxParallelToolCalls,
  });
  agent.followup('go');
  await agent.whenIdle();
  await agent.dispose();
  const events: readonly LogEvent[] = agent.log.events;
  expect(checkInvariants(events).map(formatViolation)).toEqual([]);
  return events
    .filter((event) => event.type === 'tool/call' || event.type === 'tool/result')
    .map((event) => `${event.type} ${(event.data as { callId: string }).callId}`);
}

const deny = (seams: Seams): void => {
  seams.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'no' }), { name: 'deny' });
};
const failAtOnce = (seams: Seams): void => {
  seams.on(
    'tools/execute',
    () => {
      throw new Error('boom');
    },
    { name: 'boom' },
  );
};

describe('E03 fixed: a pass-through listener no longer moves tool lines of a parallel group', () => {
  it('E03 fixed: with every call denied and a pool of 2, a pass-through tools/post-execute listener leaves the refill’s tool/call before c1’s result', async () => {
    const without = await batchLines(deny, 2);
    const withPassThrough = await batchLines((seams) => {
      deny(seams);
      seams.on('tools/post-execute', (_ctx, next) => next(), { name: 'pass' });
    }, 2);
    expect(without).toEqual([
      'tool/call c0',
      'tool/call c1',
      'tool/result c0',
      'tool/call c2',
      'tool/result c1',
      'tool/result c2',
    ]);
    // The pass-through decided nothing: the same lines.
    expect(withPassThrough).toEqual(without);
  });

  it('E03 fixed: with a tools/execute listener that throws and a pool of 4, a pass-through tools/prepare or tools/pre-execute listener leaves c2’s tool/call before c0’s result', async () => {
    const without = await batchLines(failAtOnce, 4);
    expect(without).toEqual([
      'tool/call c0',
      'tool/call c1',
      'tool/call c2',
      'tool/result c0',
      'tool/result c1',
      'tool/result c2',
    ]);
    // The same lines for either seam.
    for (const seam of ['tools/prepare', 'tools/pre-execute'] as const) {
      const withPassThrough = await batchLines((seams) => {
        failAtOnce(seams);
        if (seam === 'tools/prepare') seams.on(seam, () => undefined, { name: 'pass' });
        else seams.on(seam, (_ctx, next) => next(), { name: 'pass' });
      }, 4);
      expect(withPassThrough, seam).toEqual(without);
    }
  });

  it('E03 fixed: with plain bodies that answer at once and a pool of 4, pass-throughs on the four tool seams and a guard leave c2’s tool/call before c0’s result', async () => {
    const without = await batchLines(() => {}, 4);
    const withPassThrough = await batchLines((seams) => {
      seams.on('tools/prepare', () => undefined, { name: 'pass' });
      seams.on('tools/pre-execute', (_ctx, next) => next(), { name: 'pass' });
      seams.on('tools/execute', (_ctx, next) => next(), { name: 'pass' });
      seams.on('tools/post-execute', (_ctx, next) => next(), { name: 'pass' });
      seams.guard(() => undefined, { name: 'pass' });
    }, 4);
    expect(without).toEqual([
      'tool/call c0',
      'tool/call c1',
      'tool/call c2',
      'tool/result c0',
      'tool/result c1',
      'tool/result c2',
    ]);
    expect(withPassThrough).toEqual(without);
  });
});
