import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolRegistryCore, defineTool } from '../../../tools/index.js';
import { answeredStep, createTestAgent, reasons, type TestAgent } from './helpers.js';

/** A registry with one `echo` tool that counts how often its body ran. */
function countingEcho() {
  let ran = 0;
  const tools = createToolRegistryCore();
  tools.register(
    defineTool({
      name: 'echo',
      description: 'echo',
      parameters: z.object({}),
      execute: () => {
        ran++;
        return 'x';
      },
    }),
  );
  return { tools, runs: () => ran };
}

let current: TestAgent | undefined;
afterEach(async () => {
  await current?.agent.dispose();
  current = undefined;
});

const overloaded = { error: { message: 'overloaded', code: 'RATE_LIMIT' } };

describe('model requests', () => {
  it('L14 a failed request retried by a request-error listener opens a new numbered step', async () => {
    const seenPrior: number[] = [];
    current = createTestAgent({
      script: [overloaded, { text: 'recovered' }],
      register: (seams) =>
        seams.on('agent/request-error', (c) => {
          seenPrior.push(c.priorFailures);
          return { action: 'retry' };
        }),
    });
    current.agent.followup('go');
    await current.agent.whenIdle();
    expect(current.eventTypes()).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'step/end',
      ...answeredStep,
      'turn/end',
    ]);
    expect(current.eventData('step/start').map((d) => d.step)).toEqual([1, 2]);
    expect(reasons(current.agent.log.events)).toEqual([{ kind: 'completed' }]);
    expect(seenPrior).toEqual([0]);
    current.expectInvariants();
  });

  it('L14 without a request-error listener the turn ends error with the failure message and code', async () => {
    current = createTestAgent({ script: [overloaded] });
    current.agent.followup('go');
    await current.agent.whenIdle();
    expect(reasons(current.agent.log.events)).toEqual([
      { kind: 'error', step: 1, message: 'overloaded', code: 'RATE_LIMIT' },
    ]);
    expect(current.notifications.of('seam/decided')).toContainEqual(
      expect.objectContaining({
        seam: 'agent/request-error',
        decidedBy: 'default',
        decision: { action: 'fail' },
      }),
    );
    current.expectInvariants();
  });

  it('L14 retries stop after maxRequestRetries', async () => {
    current = createTestAgent({
      script: [overloaded, overloaded, overloaded, { text: 'never reached' }],
      register: (seams) => seams.on('agent/request-error', () => ({ action: 'retry' })),
      agent: { maxRequestRetries: 2 },
    });
    current.agent.followup('go');
    await current.agent.whenIdle();
    expect(current.model.requests).toHaveLength(3);
    expect(reasons(current.agent.log.events)).toEqual([
      { kind: 'error', step: 3, message: 'overloaded', code: 'RATE_LIMIT' },
    ]);
    current.expectInvariants();
  });

  it('L15 a max-tokens step makes the turn max-tokens even when a later step completes; its tool calls never run', async () => {
    let continued = false;
    const { tools, runs } = countingEcho();
    current = createTestAgent({
      tools,
      script: [
        { text: 'partial', toolCalls: [{ id: 'c1', name: 'echo', arguments: {} }], finish: 'max-tokens' },
        { text: 'done' },
      ],
      register: (seams) =>
        seams.on('agent/turn-continuation', (_c, next) => {
          if (continued) return next();
          continued = true;
          return { action: 'continue' };
        }),
    });
    current.agent.followup('go');
    await current.agent.whenIdle();
    const answers = current.eventData<{ content: { type: string }[]; finish: string }>('assistant/message');
    expect(answers.map((a) => a.finish)).toEqual(['max-tokens', 'stop']);
    expect(answers[0]?.content.map((b) => b.type)).toEqual(['text']);
    expect(current.eventTypes()).not.toContain('tool/call');
    expect(runs()).toBe(0);
    expect(reasons(current.agent.log.events)).toEqual([{ kind: 'max-tokens' }]);
    current.expectInvariants();
  });

  it('L19 duplicate call ids in one answer end the turn error INVALID_RESPONSE and run no tool', async () => {
    const { tools, runs } = countingEcho();
    current = createTestAgent({
      tools,
      script: [
        {
          toolCalls: [
            { id: 'c1', name: 'echo', arguments: {} },
            { id: 'c1', name: 'echo', arguments: {} },
          ],
        },
      ],
    });
    current.agent.followup('go');
    await current.agent.whenIdle();
    expect(current.eventTypes()).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'step/end',
      'turn/end',
    ]);
    expect(reasons(current.agent.log.events)).toEqual([
      expect.objectContaining({ kind: 'error', step: 1, code: 'INVALID_RESPONSE' }),
    ]);
    expect(runs()).toBe(0);
    current.expectInvariants();
  });
});
