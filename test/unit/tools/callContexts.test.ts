// tools.md § Additional contexts of one call: what a call returns with its result, and where the turn records it.

import { createSeams, createToolRegistry, type HookContext } from 'seamchart';
import { describe, expect, it } from 'vitest';
import {
  agentRun,
  ctx,
  expectFrozenDeep,
  expectSoundAndDispose,
  quiet,
  rows,
  run,
  runAgent,
  texts,
  tool,
  tracedSeams,
} from './pipeline.js';

describe('tools.md § Additional contexts of one call', () => {
  it('order: pre, body-deferred, post', async () => {
    const t = tracedSeams({
      pre: () => ({ kind: 'allow', additionalContexts: [ctx('pre')] }),
      post: async (_c, next) => ({
        ...((await next()) as object),
        kind: 'accept',
        additionalContexts: [ctx('post')],
      }),
    });
    const result = await run(t, {}, {
      execute: (_a: unknown, exec: { deferContext(c: HookContext): void }) => {
        exec.deferContext(ctx('body1'));
        exec.deferContext(ctx('body2'));
        return 'x';
      },
    } as never);
    expect(texts(result.additionalContexts)).toEqual(['pre', 'body1', 'body2', 'post']);
    expectFrozenDeep(result);
  });

  it('a deny keeps the pre and post contexts, in order', async () => {
    const t = tracedSeams({
      pre: () => ({ kind: 'deny', reason: 'r', additionalContexts: [ctx('pre')] }),
      post: () => ({ kind: 'accept', additionalContexts: [ctx('post')] }),
    });
    const result = await run(t);
    expect(texts(result.additionalContexts)).toEqual(['pre', 'post']);
  });

  it('through an agent: per call pre, body-deferred, post; all after the last tool/result', async () => {
    const seams = createSeams({ logger: quiet });
    seams.on('tools/pre-execute', async (exec) => ({
      kind: 'allow',
      additionalContexts: [ctx(`pre-${exec.callId}`)],
    }));
    seams.on('tools/post-execute', async (c) => ({
      kind: 'accept',
      additionalContexts: [ctx(`post-${c.exec.callId}`)],
    }));
    const tools = createToolRegistry();
    tools.register(
      tool({
        concurrency: 'parallel',
        execute: (_a: unknown, exec: { callId: string; deferContext(c: HookContext): void }) => {
          exec.deferContext(ctx(`body-${exec.callId}`));
          return 'x';
        },
      } as never),
    );
    const agent = await agentRun({
      tools,
      seams,
      calls: [
        { id: 'c1', name: 'probe', arguments: {} },
        { id: 'c2', name: 'probe', arguments: {} },
      ],
    });
    expect(rows(agent)).toEqual([
      'tool/call:c1',
      'tool/call:c2',
      'tool/result:c1',
      'tool/result:c2',
      'ctx:pre-c1',
      'ctx:body-c1',
      'ctx:post-c1',
      'ctx:pre-c2',
      'ctx:body-c2',
      'ctx:post-c2',
    ]);
    await expectSoundAndDispose(agent);
  });

  it('a PIPELINE_ERROR through an agent: only the pre contexts reach the log', async () => {
    const seams = createSeams({ logger: quiet });
    seams.on('tools/pre-execute', async () => ({ kind: 'allow', additionalContexts: [ctx('pre')] }));
    seams.on('tools/post-execute', async () => {
      throw new Error('post failed');
    });
    const tools = createToolRegistry();
    tools.register(
      tool({
        execute: (_a: unknown, exec: { deferContext(c: HookContext): void }) => {
          exec.deferContext(ctx('body'));
          return 'x';
        },
      } as never),
    );
    const agent = await runAgent(seams, tools, 1);
    const contexts = agent.log.events
      .filter((e) => e.type === 'context/message')
      .map((e) => (e.data as { content: Array<{ text: string }> }).content[0]!.text);
    expect(contexts).toEqual(['pre']);
    const result = agent.log.events.find((e) => e.type === 'tool/result')!.data as {
      error?: { code: string };
    };
    expect(result.error?.code).toBe('PIPELINE_ERROR');
    await expectSoundAndDispose(agent);
  });
});
