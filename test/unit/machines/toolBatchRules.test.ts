// machines.md § toolBatch machine: grouping, the policy lane and the parallel cap, through an agent.

import { createSeams, createToolRegistry } from 'seamchart';
import { describe, expect, it } from 'vitest';
import {
  agentRun,
  also,
  expectSoundAndDispose,
  quiet,
  rows,
  runAgent,
  sleep,
  tool,
} from '../tools/pipeline.js';

describe('machines.md § toolBatch machine', () => {
  it('grouping: the concurrency function form is read at start time with the arguments; maxParallelToolCalls caps bodies', async () => {
    const seams = createSeams({ logger: quiet });
    const tools = createToolRegistry();
    let inFlight = 0;
    let maxInFlight = 0;
    const seenArgs: unknown[] = [];
    tools.register(
      tool({
        concurrency: (args: { n?: number }) => also(seenArgs.push(args), args.n !== 0),
        execute: async () => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await new Promise((r) => setTimeout(r, 5));
          inFlight--;
          return 'x';
        },
      } as never),
    );
    const agent = await agentRun({
      tools,
      seams,
      extra: { maxParallelToolCalls: 2 },
      calls: [1, 2, 3, 4].map((n) => ({ id: `c${n}`, name: 'probe', arguments: { n } })),
    });
    expect(maxInFlight).toBe(2);
    expect(seenArgs).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    expect(rows(agent).slice(0, 4)).toEqual([
      'tool/call:c1',
      'tool/call:c2',
      'tool/result:c1',
      'tool/call:c3',
    ]);
    await expectSoundAndDispose(agent);
  });

  it('grouping: modes are read when a call is about to start, so an earlier call can change a later one', async () => {
    const seams = createSeams({ logger: quiet });
    const tools = createToolRegistry();
    let parallel = false;
    const trace: string[] = [];
    tools.register(
      tool({
        concurrency: () => parallel,
        execute: async (a: { n?: number }) => {
          trace.push(`start${a.n}`);
          if (a.n === 1) parallel = true;
          await new Promise((r) => setTimeout(r, 5));
          trace.push(`end${a.n}`);
          return 'x';
        },
      } as never),
    );
    const agent = await agentRun({
      tools,
      seams,
      calls: [1, 2, 3].map((n) => ({ id: `c${n}`, name: 'probe', arguments: { n } })),
    });
    expect(trace).toEqual(['start1', 'end1', 'start2', 'start3', 'end2', 'end3']);
    await expectSoundAndDispose(agent);
  });

  it('one policy lane: pre/approval/guards of one call never overlap post/finalize/result of another', async () => {
    const seams = createSeams({ logger: quiet });
    const events: string[] = [];
    let policy = 0;
    let review = 0;
    const overlaps: string[] = [];
    const enter = (kind: 'policy' | 'review', what: string) => {
      if (kind === 'policy') policy++;
      else review++;
      if (policy > 0 && review > 0) overlaps.push(what);
      events.push(`${what}>`);
    };
    const leave = (kind: 'policy' | 'review', what: string) => {
      if (kind === 'policy') policy--;
      else review--;
      events.push(`<${what}`);
    };
    seams.on('tools/pre-execute', async (exec, next) => {
      enter('policy', `pre-${exec.callId}`);
      await sleep(exec.callId === 'c2' ? 30 : 1);
      leave('policy', `pre-${exec.callId}`);
      return next();
    });
    seams.on('tools/post-execute', async (c, next) => {
      enter('review', `post-${c.exec.callId}`);
      await sleep(5);
      leave('review', `post-${c.exec.callId}`);
      return next();
    });
    const tools = createToolRegistry();
    tools.register(
      tool({
        concurrency: 'parallel',
        execute: async (a: { n?: number }) => {
          await sleep(a.n === 1 ? 1 : 5);
          return 'x';
        },
      } as never),
    );
    const agent = await runAgent(seams, tools, 3);
    expect(overlaps).toEqual([]);
    // c1 settled while c2 was in pre-execute; a slot is still free, so c3 starts before c1 commits: the
    // batch fills free slots first, so how long c2's policy took never moves c1's result (engine.md, contract 3).
    expect(events.filter((e) => e.startsWith('pre') || e.startsWith('post')).slice(0, 4)).toEqual([
      'pre-c1>',
      'pre-c2>',
      'pre-c3>',
      'post-c1>',
    ]);
    await expectSoundAndDispose(agent);
  });

  it('one policy lane: the next call waits while the previous one awaits approval', async () => {
    const seams = createSeams({ logger: quiet });
    const events: string[] = [];
    seams.on('tools/pre-execute', async (exec) => {
      events.push(`pre-${exec.callId}`);
      return exec.callId === 'c1' ? { kind: 'ask' } : { kind: 'allow' };
    });
    const approval = {
      request: async (q: { callId: string; toolName: string; reason?: string; agent?: { id: string } }) => {
        events.push(`approval-${q.callId}-${q.toolName}-${typeof q.agent?.id}`);
        await sleep(20);
        events.push(`approved-${q.callId}`);
        return 'allowed-once' as const;
      },
    };
    const tools = createToolRegistry();
    tools.register(tool({ concurrency: 'parallel' } as never));
    const agent = await runAgent(seams, tools, 2, { approval });
    expect(events).toEqual(['pre-c1', 'approval-c1-probe-string', 'approved-c1', 'pre-c2']);
    await expectSoundAndDispose(agent);
  });

  it('input maxParallel: maxParallelToolCalls defaults to 10', async () => {
    const seams = createSeams({ logger: quiet });
    const tools = createToolRegistry();
    let inFlight = 0;
    let maxInFlight = 0;
    tools.register(
      tool({
        concurrency: 'parallel',
        execute: async () => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await new Promise((r) => setTimeout(r, 5));
          inFlight--;
          return 'x';
        },
      } as never),
    );
    const agent = await runAgent(seams, tools, 12);
    expect(maxInFlight).toBe(10);
    await expectSoundAndDispose(agent);
  });
});
