// E03 found it (engine.md contract 3): in a parallel group, whether a settled call's `tool/result`
// comes before or after a later call's `tool/call` depends on how long the policy lane and the
// review take — so a listener that decides nothing moves those lines. The toolBatch chart commits
// before it starts (`scheduling`: `canCommit` before `mayStart`), and a call that settles at once
// is committed earlier or later depending on listener timing.
//
// These tests pin today's two orders. Once the batch orders starts and commits by rule alone, the
// two logs of each test become equal: assert that instead (and drop the guard in
// test/properties/passThrough.ts that keeps the property clear of this case).

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

describe('E03 bug: a pass-through listener moves tool lines of a parallel group (open)', () => {
  it('E03 bug: with every call denied and a pool of 2, a pass-through tools/post-execute listener puts c1’s result before the refill’s tool/call', async () => {
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
    // Should equal `without`: the pass-through decided nothing.
    expect(withPassThrough).toEqual([
      'tool/call c0',
      'tool/call c1',
      'tool/result c0',
      'tool/result c1',
      'tool/call c2',
      'tool/result c2',
    ]);
  });

  it('E03 bug: with a tools/execute listener that throws and a pool of 4, a pass-through tools/prepare or tools/pre-execute listener puts c0’s result before c2’s tool/call', async () => {
    const without = await batchLines(failAtOnce, 4);
    expect(without).toEqual([
      'tool/call c0',
      'tool/call c1',
      'tool/call c2',
      'tool/result c0',
      'tool/result c1',
      'tool/result c2',
    ]);
    // Should equal `without` for both seams.
    for (const seam of ['tools/prepare', 'tools/pre-execute'] as const) {
      const withPassThrough = await batchLines((seams) => {
        failAtOnce(seams);
        if (seam === 'tools/prepare') seams.on(seam, () => undefined, { name: 'pass' });
        else seams.on(seam, (_ctx, next) => next(), { name: 'pass' });
      }, 4);
      expect(withPassThrough, seam).toEqual([
        'tool/call c0',
        'tool/call c1',
        'tool/result c0',
        'tool/call c2',
        'tool/result c1',
        'tool/result c2',
      ]);
    }
  });

  it('E03 bug: with plain bodies that answer at once and a pool of 4, pass-throughs on the four tool seams and a guard put c0’s result before c2’s tool/call', async () => {
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
    // Should equal `without`.
    expect(withPassThrough).toEqual([
      'tool/call c0',
      'tool/call c1',
      'tool/result c0',
      'tool/call c2',
      'tool/result c1',
      'tool/result c2',
    ]);
  });
});
