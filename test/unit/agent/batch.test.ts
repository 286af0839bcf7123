import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { HookContext, JsonValue } from '../../../kernel/index.js';
import { createToolRegistry } from '../../../machines/toolCall/createToolRegistry.js';
import { coreTurnEvents } from '../../../session/index.js';
import { defineTool } from '../../../tools/index.js';
import { createTestAgent, deferred, reasons, sleep, type TestAgent, textOf } from './helpers.js';

let current: TestAgent | undefined;
afterEach(async () => {
  await current?.agent.dispose();
  current = undefined;
});

const ctx = (t: string): HookContext => ({
  content: [{ type: 'text', text: t }],
  source: { kind: 'plugin', plugin: 'test' },
});

/** Log rows with context texts spelled out, for order assertions. */
/** A registry with one argument-less `echo` tool that answers `'x'`. */
function echoTools() {
  const tools = createToolRegistry();
  tools.register(
    defineTool({ name: 'echo', description: 'echo', parameters: z.object({}), execute: () => 'x' }),
  );
  return tools;
}

/** How a turn whose first answer calls tools begins, up to its calls. */
const toolStepOpening = ['turn/start', 'user/message', 'step/start', 'assistant/message'];

function rows(test: TestAgent): string[] {
  return coreTurnEvents(test.agent.log.events).map((e) => {
    const data = e.data as { content?: never; callId?: string; error?: { code: string } };
    if (e.type === 'context/message') return `context:${textOf(data.content)}`;
    if (e.type === 'tool/call') return `call:${data.callId}`;
    if (e.type === 'tool/result') return `result:${data.callId}${data.error ? `:${data.error.code}` : ''}`;
    return e.type;
  });
}

async function until(predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !predicate(); i++) await sleep(2);
  expect(predicate()).toBe(true);
}

describe('tool batches through an agent', () => {
  it('B07 a context injected by a tool body precedes the post-execute context of the same call, after its tool/result', async () => {
    const tools = createToolRegistry();
    tools.register(
      defineTool({
        name: 'work',
        description: 'work',
        parameters: z.object({}),
        execute: (_args, exec) => {
          exec.agent?.inject('from body');
          return 'done';
        },
      }),
    );
    current = createTestAgent({
      tools,
      script: [{ toolCalls: [{ id: 'c1', name: 'work', arguments: {} }] }, { text: 'finished' }],
      register: (seams) =>
        seams.on('tools/post-execute', async (_c, next) => {
          const decision = await next();
          return decision.kind === 'accept' && decision.value === undefined
            ? { kind: 'accept', additionalContexts: [ctx('from post-execute')] }
            : decision;
        }),
    });
    current.agent.followup('go');
    await current.agent.whenIdle();
    expect(rows(current)).toEqual([
      ...toolStepOpening,
      'call:c1',
      'result:c1',
      'context:from body',
      'context:from post-execute',
      'step/end',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ]);
    current.expectInvariants();
  });

  it('B08 cancel with two held parallel bodies drains c1 and c2, pairs c3 and c4 synthetically, then records ctx-c1, ctx-c2', async () => {
    const release = deferred();
    const started: string[] = [];
    const tools = createToolRegistry();
    tools.register(
      defineTool({
        name: 'slow',
        description: 'slow',
        parameters: z.object({}),
        concurrency: 'parallel',
        execute: async (_args, exec) => {
          started.push(exec.callId);
          await release.promise;
          return 'ok';
        },
      }),
    );
    current = createTestAgent({
      tools,
      agent: { maxParallelToolCalls: 2 },
      script: [{ toolCalls: ['c1', 'c2', 'c3', 'c4'].map((id) => ({ id, name: 'slow', arguments: {} })) }],
      register: (seams) =>
        seams.on('tools/post-execute', async (c, next) => {
          const decision = await next();
          return { ...decision, additionalContexts: [ctx(`ctx-${c.exec.callId}`)] } as typeof decision;
        }),
    });
    current.agent.followup('go');
    await until(() => started.length === 2);
    current.agent.cancel();
    await sleep(5);
    release.resolve();
    await current.agent.whenIdle();
    expect(rows(current)).toEqual([
      ...toolStepOpening,
      'call:c1',
      'call:c2',
      'result:c1:ABORTED',
      'result:c2:ABORTED',
      'call:c3',
      'result:c3:ABORTED_BEFORE_DISPATCH',
      'call:c4',
      'result:c4:ABORTED_BEFORE_DISPATCH',
      'context:ctx-c1',
      'context:ctx-c2',
      'step/end',
      'turn/end',
    ]);
    expect(started).toEqual(['c1', 'c2']);
    expect(reasons(current.agent.log.events)).toEqual([{ kind: 'aborted' }]);
    current.expectInvariants();
  });

  it('T06 through an agent, JSON.parse(tool/call.arguments) deep-equals exec.arguments', async () => {
    const seen: JsonValue[] = [];
    const tools = createToolRegistry();
    tools.register(
      defineTool({
        name: 'echo',
        description: 'echo',
        parameters: z.object({
          text: z.string(),
          n: z.number(),
          nested: z.object({ list: z.array(z.boolean()) }),
        }),
        execute: ({ text }) => text,
      }),
    );
    const args = { text: 'hi', n: 2, nested: { list: [true, false] } };
    current = createTestAgent({
      tools,
      script: [{ toolCalls: [{ id: 'c1', name: 'echo', arguments: args }] }, { text: 'ok' }],
      register: (seams) =>
        seams.on('tools/pre-execute', (exec, next) => {
          seen.push(exec.arguments);
          return next();
        }),
    });
    current.agent.followup('go');
    await current.agent.whenIdle();
    const recorded = current.eventData<{ arguments: string }>('tool/call')[0]?.arguments ?? '';
    expect(seen).toHaveLength(1);
    expect(JSON.parse(recorded)).toEqual(seen[0]);
    expect(seen[0]).toEqual(args);
    current.expectInvariants();
  });

  it('L10 a continuation stop after a step with tool calls ends the turn', async () => {
    const tools = echoTools();
    current = createTestAgent({
      tools,
      script: [{ toolCalls: [{ id: 'c1', name: 'echo', arguments: {} }] }, { text: 'never' }],
      register: (seams) => seams.on('agent/turn-continuation', () => ({ action: 'stop' })),
    });
    current.agent.followup('go');
    await current.agent.whenIdle();
    expect(current.model.requests).toHaveLength(1);
    expect(current.eventTypes()).toEqual([
      ...toolStepOpening,
      'tool/call',
      'tool/result',
      'step/end',
      'turn/end',
    ]);
    expect(reasons(current.agent.log.events)).toEqual([{ kind: 'completed' }]);
    current.expectInvariants();
  });

  it('L18 inject() from tools/result and agent/status listeners while the batch finishes is never lost', async () => {
    const tools = echoTools();
    current = createTestAgent({
      tools,
      script: [{ toolCalls: [{ id: 'c1', name: 'echo', arguments: {} }] }, { text: 'done' }],
      register: (seams) => {
        seams.on('tools/result', (c) => c.exec.agent?.inject('from tools/result'));
        seams.on('agent/status', (c) => {
          if (c.status === 'idle') current?.agent.inject('from agent/status');
        });
      },
    });
    current.agent.followup('go');
    await current.agent.whenIdle();
    await sleep(5);
    const texts = rows(current).filter((r) => r.startsWith('context:'));
    expect(texts).toEqual(['context:from tools/result', 'context:from agent/status']);
    const result = rows(current).indexOf('result:c1');
    expect(rows(current)[result + 1]).toBe('context:from tools/result');
    expect(current.agent.log.events.at(-3)?.data).toMatchObject({ trigger: { kind: 'injection' } });
    current.expectInvariants();
  });

  it('C02 a pre-execute listener that cancels and allows: c1 gets ABORTED_BEFORE_DISPATCH with finalize and tools/result, c2 a synthetic pair, no body runs', async () => {
    const bodies: string[] = [];
    const finalized: string[] = [];
    const tools = createToolRegistry();
    tools.register(
      defineTool({
        name: 'rm',
        description: 'exclusive',
        parameters: z.object({}),
        execute: (_args, exec) => {
          bodies.push(exec.callId);
          return 'x';
        },
        finalizeContent: (exec) => {
          finalized.push(exec.callId);
          return undefined;
        },
      }),
    );
    current = createTestAgent({
      tools,
      script: [
        {
          toolCalls: [
            { id: 'c1', name: 'rm', arguments: {} },
            { id: 'c2', name: 'rm', arguments: {} },
          ],
        },
      ],
      register: (seams) =>
        seams.on('tools/pre-execute', (exec, next) => {
          exec.agent?.cancel();
          return next();
        }),
    });
    current.agent.followup('go');
    await current.agent.whenIdle();
    expect(rows(current)).toEqual([
      ...toolStepOpening,
      'call:c1',
      'result:c1:ABORTED_BEFORE_DISPATCH',
      'call:c2',
      'result:c2:ABORTED_BEFORE_DISPATCH',
      'step/end',
      'turn/end',
    ]);
    expect(bodies).toEqual([]);
    expect(finalized).toEqual(['c1']);
    expect(
      current.notifications.of('tools/result').map((p) => (p.exec as { callId: string }).callId),
    ).toEqual(['c1']);
    expect(reasons(current.agent.log.events)).toEqual([{ kind: 'aborted' }]);
    current.expectInvariants();
  });
});
