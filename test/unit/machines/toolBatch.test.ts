import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { checkInvariants } from '../../../session/index.js';
import { defineTool } from '../../../tools/index.js';
import { deferred, textContext } from '../tools/fixtures.js';
import { type BatchHarness, createBatchHarness, toolCall } from './toolBatch.harness.js';

/** Tools whose bodies wait for the test to release them, recording `start`/`end` per call. */
function registerGatedTools(harness: BatchHarness) {
  const trace: string[] = [];
  const gates = new Map<string, ReturnType<typeof deferred<void>>>();
  let inFlight = 0;
  let maxInFlight = 0;
  const gate = (id: string) => {
    let entry = gates.get(id);
    if (!entry) {
      entry = deferred<void>();
      gates.set(id, entry);
    }
    return entry;
  };
  const body = async ({ id }: { id: string }) => {
    trace.push(`start ${id}`);
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await gate(id).promise;
    inFlight -= 1;
    trace.push(`end ${id}`);
    return id;
  };
  const parameters = z.object({ id: z.string() });
  harness.tools.register(
    defineTool({ name: 'par', description: 'x', parameters, execute: body, concurrency: 'parallel' }),
  );
  harness.tools.register(
    defineTool({ name: 'excl', description: 'x', parameters, execute: body, concurrency: 'exclusive' }),
  );
  return {
    trace,
    release: (id: string) => gate(id).resolve(),
    maxInFlight: () => maxInFlight,
  };
}

const par = (id: string) => toolCall(id, 'par', { id });
const excl = (id: string) => toolCall(id, 'excl', { id });

describe('toolBatch', () => {
  it('B01 two exclusive calls run one after the other', async () => {
    const harness = createBatchHarness();
    const gated = registerGatedTools(harness);
    const run = harness.run([excl('c1'), excl('c2')]);
    await vi.waitFor(() => expect(gated.trace).toEqual(['start c1']));
    gated.release('c1');
    await vi.waitFor(() => expect(gated.trace).toEqual(['start c1', 'end c1', 'start c2']));
    gated.release('c2');
    await run.finished;
    expect(harness.trace()).toEqual(['tool/call c1', 'tool/result c1', 'tool/call c2', 'tool/result c2']);
    expect(checkInvariants(harness.log.events)).toEqual([]);
  });

  it('B02 three parallel calls released 3,2,1: bodies overlap; pre, post and results stay in model order', async () => {
    const harness = createBatchHarness();
    const gated = registerGatedTools(harness);
    const order: string[] = [];
    harness.seams.on('tools/pre-execute', (exec, next) => {
      order.push(`pre ${exec.callId}`);
      return next();
    });
    harness.seams.on('tools/post-execute', ({ exec }, next) => {
      order.push(`post ${exec.callId}`);
      return next();
    });
    const run = harness.run([par('c1'), par('c2'), par('c3')]);
    await vi.waitFor(() => expect(gated.trace).toEqual(['start c1', 'start c2', 'start c3']));
    for (const id of ['c3', 'c2', 'c1']) {
      gated.release(id);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await run.finished;
    expect(order).toEqual(['pre c1', 'pre c2', 'pre c3', 'post c1', 'post c2', 'post c3']);
    expect(harness.trace().filter((line) => line.startsWith('tool/result'))).toEqual([
      'tool/result c1',
      'tool/result c2',
      'tool/result c3',
    ]);
    expect(checkInvariants(harness.log.events)).toEqual([]);
  });

  it('B03 with a cap of 2, four parallel calls never exceed 2 bodies and commit before refilling', async () => {
    const harness = createBatchHarness();
    const gated = registerGatedTools(harness);
    const run = harness.run([par('c1'), par('c2'), par('c3'), par('c4')], { maxParallel: 2 });
    for (const id of ['c1', 'c2', 'c3', 'c4']) {
      await vi.waitFor(() => expect(gated.trace).toContain(`start ${id}`));
      gated.release(id);
    }
    await run.finished;
    expect(gated.maxInFlight()).toBe(2);
    expect(harness.trace().slice(0, 4)).toEqual([
      'tool/call c1',
      'tool/call c2',
      'tool/result c1',
      'tool/call c3',
    ]);
    expect(checkInvariants(harness.log.events)).toEqual([]);
  });

  it('B04 [parallel, parallel, exclusive, parallel]: the exclusive call is a barrier', async () => {
    const harness = createBatchHarness();
    const gated = registerGatedTools(harness);
    const run = harness.run([par('c1'), par('c2'), excl('c3'), par('c4')]);
    for (const id of ['c1', 'c2', 'c3', 'c4']) {
      await vi.waitFor(() => expect(gated.trace).toContain(`start ${id}`));
      await new Promise((resolve) => setTimeout(resolve, 5));
      gated.release(id);
    }
    await run.finished;
    expect(gated.trace).toEqual([
      'start c1',
      'start c2',
      'end c1',
      'end c2',
      'start c3',
      'end c3',
      'start c4',
      'end c4',
    ]);
    expect(checkInvariants(harness.log.events)).toEqual([]);
  });

  it('B05 post-execute contexts of two calls land after both results, in model order', async () => {
    const harness = createBatchHarness();
    registerGatedTools(harness);
    harness.tools.register(
      defineTool({
        name: 'quick',
        description: 'x',
        parameters: z.object({}),
        execute: () => 'ok',
        concurrency: 'parallel',
      }),
    );
    harness.seams.on('tools/post-execute', ({ exec }) => ({
      kind: 'accept',
      additionalContexts: [textContext(`ctx-${exec.callId}`)],
    }));
    await harness.run([toolCall('c1', 'quick'), toolCall('c2', 'quick')]).finished;
    expect(harness.trace()).toEqual([
      'tool/call c1',
      'tool/call c2',
      'tool/result c1',
      'tool/result c2',
      'context/message ctx-c1',
      'context/message ctx-c2',
    ]);
    expect(checkInvariants(harness.log.events)).toEqual([]);
  });

  it('B06 a composite tool defers two contexts: both come after its result, in order, meta kept', async () => {
    const harness = createBatchHarness();
    harness.tools.register(
      defineTool({
        name: 'composite',
        description: 'x',
        parameters: z.object({}),
        execute: (_args, exec) => {
          exec.deferContext(textContext('first', { step: 1 }));
          exec.deferContext(textContext('second', { step: 2 }));
          return 'done';
        },
      }),
    );
    await harness.run([toolCall('c1', 'composite')]).finished;
    expect(harness.trace()).toEqual([
      'tool/call c1',
      'tool/result c1',
      'context/message first',
      'context/message second',
    ]);
    const contexts = harness.log.events
      .filter((event) => event.type === 'context/message')
      .map((event) => event.data);
    expect(contexts).toEqual([textContext('first', { step: 1 }), textContext('second', { step: 2 })]);
    expect(checkInvariants(harness.log.events)).toEqual([]);
  });

  it('B09 an abort during a parallel group: started calls drain, the exclusive call never runs and gets a pair', async () => {
    const harness = createBatchHarness();
    const gated = registerGatedTools(harness);
    const run = harness.run([par('c1'), par('c2'), excl('c3')]);
    await vi.waitFor(() => expect(gated.trace).toEqual(['start c1', 'start c2']));
    run.abort();
    gated.release('c1');
    gated.release('c2');
    const { output } = await run.finished;
    expect(output).toEqual({ aborted: true });
    expect(gated.trace).not.toContain('start c3');
    expect(harness.trace()).toEqual([
      'tool/call c1',
      'tool/call c2',
      'tool/result c1',
      'tool/result c2',
      'tool/call c3',
      'tool/result c3',
    ]);
    const results = harness.log.events
      .filter((event) => event.type === 'tool/result')
      .map((event) => event.data);
    expect(results.map((data) => (data as { error?: { code: string } }).error?.code)).toEqual([
      'ABORTED',
      'ABORTED',
      'ABORTED_BEFORE_DISPATCH',
    ]);
    expect(checkInvariants(harness.log.events)).toEqual([]);
  });
});
