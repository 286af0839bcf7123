// seams.md § Rules that must hold (tool seams): what each tool seam may and may not do.

import { checkInvariants, createSeams, createToolRegistry, type ToolResult } from 'seamchart';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  agentRun,
  errorOf,
  expectFrozenDeep,
  quiet,
  run,
  runRecordingSignals,
  tool,
  tracedSeams,
} from '../tools/pipeline.js';

describe('seams.md § Rules that must hold (tool seams)', () => {
  it('rule tools/post-execute: accept{content} keeps value; accept{value} re-validates and re-renders', async () => {
    const a = await run(
      tracedSeams({ post: () => ({ kind: 'accept', content: [{ type: 'text', text: 'c' }] }) }),
      {},
      { finalizeContent: undefined } as never,
    );
    expect(a).toMatchObject({ isError: false, value: 'ok', content: [{ type: 'text', text: 'c' }] });
    const b = await run(tracedSeams({ post: () => ({ kind: 'accept', value: 3 }) }), {}, {
      output: { schema: z.string() },
      finalizeContent: undefined,
    } as never);
    expect(errorOf(b).code).toBe('INVALID_TOOL_OUTPUT');
    const c = await run(tracedSeams({ post: () => ({ kind: 'accept', value: { x: 1 } }) }), {}, {
      finalizeContent: undefined,
    } as never);
    expect(c).toMatchObject({
      isError: false,
      value: { x: 1 },
      content: [{ type: 'text', text: '{"x":1}' }],
    });
  });

  it('rule tools/result: observers see the final frozen result; a throwing observer changes nothing', async () => {
    const seams = createSeams({ logger: quiet });
    const seen: ToolResult[] = [];
    seams.on('tools/result', () => {
      throw new Error('observer');
    });
    seams.on('tools/result', (c) => {
      seen.push(c.result);
    });
    const tools = createToolRegistry();
    tools.register(tool({}));
    const result = await tools.execute({ name: 'probe', arguments: {} }, { seams });
    expect(seen[0]).toBe(result);
    expectFrozenDeep(result);
    expect(result.isError).toBe(false);
  });

  it('rule tools/execute: a wrapper passing next({signal}): the body sees it; post sees the call signal', async () => {
    const mine = new AbortController();
    const seen: AbortSignal[] = [];
    const seams = createSeams({ logger: quiet });
    let callSignal: AbortSignal | undefined;
    seams.on('tools/pre-execute', async (exec, next) => {
      callSignal = exec.signal;
      return next();
    });
    seams.on('tools/execute', async (_exec, next) => next({ signal: mine.signal }));
    seams.on('tools/post-execute', async (c, next) => {
      seen.push(c.exec.signal);
      return next();
    });
    await runRecordingSignals(seams, seen);
    expect(seen[0]).toBe(mine.signal);
    expect(seen[1]).toBe(callSignal);
  });

  it("rule cancel during a drained call's post-execute: a success becomes ABORTED; finalize + result still run", async () => {
    const controller = new AbortController();
    const t = tracedSeams({
      post: () => {
        controller.abort();
        return new Promise(() => {});
      },
    });
    const result = await run(t, {}, {}, { signal: controller.signal });
    expect(t.phases).toEqual(['pre', 'guard', 'execute', 'body', 'post', 'finalize', 'result']);
    expect(errorOf(result).code).toBe('ABORTED');
  });

  it('rule tools/execute: wrappers receive normalized results: unknown tool and throwing body arrive as isError', async () => {
    const seen: unknown[] = [];
    const seams = createSeams({ logger: quiet });
    seams.on('tools/execute', async (_e, next) => {
      const r = await next();
      seen.push(r.isError && r.error.code);
      return r;
    });
    const tools = createToolRegistry();
    tools.register(
      tool({
        execute: () => {
          throw new Error('x');
        },
      } as never),
    );
    await tools.execute({ name: 'ghost', arguments: {} }, { seams });
    await tools.execute({ name: 'probe', arguments: {} }, { seams });
    expect(seen).toEqual(['UNKNOWN_TOOL', 'TOOL_FAILED']);
  });

  it('rule tools/execute: a short-circuit success failing the output schema → INVALID_TOOL_OUTPUT; garbage → PIPELINE_ERROR', async () => {
    const a = await run(tracedSeams({ wrap: async () => ({ isError: false, value: 5, content: [] }) }), {}, {
      output: { schema: z.string() },
    } as never);
    expect(errorOf(a).code).toBe('INVALID_TOOL_OUTPUT');
    const b = await run(tracedSeams({ wrap: async () => ({ nope: true }) as never }));
    expect(errorOf(b).code).toBe('PIPELINE_ERROR');
  });

  it('rule tools/pre-execute ask: approval through createAgent({ approval }) and seams.setApproval; no channel → "no approval channel"', async () => {
    for (const [where, outcome, expected] of [
      ['agent', 'allowed-once', null],
      ['agent', 'rejected', 'rejected'],
      ['seams', 'allowed-once', null],
      ['seams', 'unavailable', 'unavailable'],
      ['none', null, 'no approval channel'],
    ] as const) {
      const seams = createSeams({ logger: quiet });
      seams.on('tools/pre-execute', async () => ({ kind: 'ask', reason: 'check' }));
      const channel = { request: async () => outcome! };
      if (where === 'seams') seams.setApproval(channel);
      const tools = createToolRegistry();
      tools.register(tool({}));
      const agent = await agentRun({
        tools,
        seams,
        calls: [{ id: 'c1', name: 'probe', arguments: {} }],
        ...(where === 'agent' ? { extra: { approval: channel } } : {}),
      });
      const result = agent.log.events.find((e) => e.type === 'tool/result')!.data as {
        isError: boolean;
        error?: { code: string; message: string };
      };
      if (expected === null) expect(result.isError).toBe(false);
      else {
        expect(result.error?.code).toBe('DENIED');
        expect(result.error?.message).toContain(expected);
      }
      expect(checkInvariants(agent.log.events)).toEqual([]);
      await agent.dispose();
    }
  });

  it('rule tools/execute: next({ signal }) replaces the signal for that dispatch only; a second next() sees the call signal', async () => {
    const seams = createSeams({ logger: quiet });
    const replacement = new AbortController();
    let callSignal: AbortSignal | undefined;
    seams.on('tools/execute', async (exec, next) => {
      callSignal = exec.signal;
      await next({ signal: replacement.signal });
      return next();
    });
    const seen: AbortSignal[] = [];
    await runRecordingSignals(seams, seen);
    expect(seen[0]).toBe(replacement.signal);
    expect(seen[1]).toBe(callSignal);
  });
});
