import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createToolRegistry } from '../../../machines/toolCall/createToolRegistry.js';
import type { Seams } from '../../../seams/types.js';
import { defineTool } from '../../../tools/index.js';
import { createTestAgent, deferred, reasons, sleep, type TestAgent, textOf } from './helpers.js';

let current: TestAgent | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await current?.agent.dispose();
  current = undefined;
});

/** Resolves once `predicate` holds, polling real time. */
async function until(predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !predicate(); i++) await sleep(2);
  expect(predicate()).toBe(true);
}

describe('cancellation and disposal', () => {
  it('C01 a cancel during the model request closes the step and the turn aborted, keeps the injected context, and the next send runs', async () => {
    current = createTestAgent({ script: [{ hang: true }, { text: 'next' }] });
    const { agent } = current;
    agent.followup('first');
    await until(() => current?.model.requests.length === 1);
    agent.inject('during the request');
    agent.cancel();
    await agent.whenIdle();
    expect(current.eventTypes()).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'context/message',
      'step/end',
      'turn/end',
    ]);
    expect(reasons(agent.log.events)).toEqual([{ kind: 'aborted' }]);
    expect(current.notifications.of('agent/cancel-requested')).toEqual([
      { agentId: agent.id, cause: { kind: 'user' } },
    ]);
    expect(current.notifications.of('agent/error')).toEqual([]);
    agent.followup('second');
    await agent.whenIdle();
    expect(reasons(agent.log.events)).toEqual([{ kind: 'aborted' }, { kind: 'completed' }]);
    current.expectInvariants();
  });

  it('C03 a cancel with keepInbox keeps the queued messages, which run as later turns', async () => {
    current = createTestAgent({ script: [{ hang: true }, { text: 'b' }, { text: 'c' }] });
    const { agent } = current;
    agent.followup('a');
    agent.followup('b');
    agent.followup('c');
    await until(() => current?.model.requests.length === 1);
    agent.cancel({ kind: 'user' }, { keepInbox: true });
    await agent.whenIdle();
    expect(reasons(agent.log.events)).toEqual([
      { kind: 'aborted' },
      { kind: 'completed' },
      { kind: 'completed' },
    ]);
    expect(current.eventData('user/message').map((d) => textOf(d.content as never))).toEqual(['a', 'b', 'c']);
    expect(current.notifications.of('agent/inbox/discard')).toEqual([]);
    current.expectInvariants();
  });

  it('C03 a cancel without keepInbox drops the queue and the pending steering in one discard', async () => {
    current = createTestAgent({ script: [{ hang: true }] });
    const { agent } = current;
    agent.followup('a');
    await until(() => current?.model.requests.length === 1);
    const steerId = agent.steer('s');
    const queuedId = agent.followup('b');
    agent.cancel();
    await agent.whenIdle();
    expect(current.notifications.of('agent/inbox/discard')).toEqual([
      {
        agentId: agent.id,
        items: [
          { id: queuedId, steering: false },
          { id: steerId, steering: true },
        ],
      },
    ]);
    expect(reasons(agent.log.events)).toEqual([{ kind: 'aborted' }]);
    current.expectInvariants();
  });

  it('C04 dispose during a turn ends it disposed, discards pending messages, and delivery throws afterwards', async () => {
    current = createTestAgent({ script: [{ hang: true }] });
    const { agent } = current;
    agent.followup('a');
    agent.followup('b');
    await until(() => current?.model.requests.length === 1);
    await agent.dispose();
    expect(reasons(agent.log.events)).toEqual([{ kind: 'disposed' }]);
    expect(current.notifications.of('agent/inbox/discard')).toHaveLength(1);
    expect(current.notifications.of('agent/status').map((p) => p.status)).toEqual(['running', 'disposed']);
    expect(() => agent.followup('c')).toThrowErrorMatchingInlineSnapshot(
      `[Error: agent "${agent.id}" is disposed: followup() cannot deliver anything anymore; create a new agent (or reopen its store)]`,
    );
    expect(() => agent.inject('x')).toThrow(/is disposed/);
    await agent.dispose();
    current.expectInvariants();
  });

  const seamCases: [string, (seams: Seams, listener: (signal: AbortSignal) => Promise<never>) => void][] = [
    ['prompt-submit', (seams, block) => seams.on('agent/prompt-submit', (c) => block(c.signal))],
    ['continuation', (seams, block) => seams.on('agent/turn-continuation', (c) => block(c.signal))],
    ['turn-stop', (seams, block) => seams.on('agent/turn-stop', (c) => block(c.signal))],
  ];
  const behaviours: [string, (signal: AbortSignal, entered: () => void) => Promise<never>][] = [
    [
      'cooperative',
      (signal, entered) => {
        entered();
        return new Promise((_, reject) =>
          signal.addEventListener('abort', () => reject(new Error('stopped'))),
        );
      },
    ],
    [
      'never-settling',
      (_signal, entered) => {
        entered();
        return new Promise(() => {});
      },
    ],
  ];
  for (const [seam, register] of seamCases) {
    for (const [behaviour, block] of behaviours) {
      it(`C05 a ${behaviour} ${seam} listener: cancel ends the turn aborted at once`, async () => {
        const inside = deferred();
        current = createTestAgent({
          script: [{ text: 'a' }],
          register: (seams) => register(seams, (signal) => block(signal, () => inside.resolve())),
        });
        current.agent.followup('go');
        await inside.promise;
        current.agent.cancel();
        await current.agent.whenIdle();
        expect(reasons(current.agent.log.events)).toEqual([{ kind: 'aborted' }]);
        expect(current.notifications.of('agent/error')).toEqual([]);
        current.expectInvariants();
      });
    }
  }

  function toolsWith(execute: () => Promise<string> | string) {
    const tools = createToolRegistry();
    tools.register(defineTool({ name: 'work', description: 'work', parameters: z.object({}), execute }));
    return tools;
  }
  const oneCall = [{ toolCalls: [{ id: 'c1', name: 'work', arguments: {} }] }, { text: 'never' }];

  for (const [behaviour, block] of behaviours) {
    it(`C05 a ${behaviour} pre-execute listener: cancel ends the turn aborted at once`, async () => {
      const inside = deferred();
      let ran = 0;
      current = createTestAgent({
        tools: toolsWith(() => {
          ran++;
          return 'x';
        }),
        script: oneCall,
        register: (seams) =>
          seams.on('tools/pre-execute', (exec) => block(exec.signal, () => inside.resolve())),
      });
      current.agent.followup('go');
      await inside.promise;
      current.agent.cancel();
      await current.agent.whenIdle();
      expect(reasons(current.agent.log.events)).toEqual([{ kind: 'aborted' }]);
      expect(
        current.eventData<{ error?: { code: string } }>('tool/result').map((r) => r.error?.code),
      ).toEqual(['ABORTED_BEFORE_DISPATCH']);
      expect(ran).toBe(0);
      expect(current.notifications.of('agent/error')).toEqual([]);
      current.expectInvariants();
    });
  }

  it('C05 a tool body that never settles ends the cancelled turn after cancelGraceMs', async () => {
    vi.useFakeTimers();
    const entered = deferred();
    current = createTestAgent({
      tools: toolsWith(() => {
        entered.resolve();
        return new Promise<string>(() => {});
      }),
      script: oneCall,
      agent: { cancelGraceMs: 1000 },
    });
    current.agent.followup('go');
    await entered.promise;
    current.agent.cancel();
    await vi.advanceTimersByTimeAsync(990);
    expect(current.eventTypes()).not.toContain('turn/end');
    await vi.advanceTimersByTimeAsync(20);
    await current.agent.whenIdle();
    expect(reasons(current.agent.log.events)).toEqual([{ kind: 'aborted' }]);
    expect(current.eventData<{ error?: { code: string } }>('tool/result').map((r) => r.error?.code)).toEqual([
      'ABORTED',
    ]);
    current.expectInvariants();
  });

  it('C05 post-step after a cancelled batch runs once with the aborted signal, bounded by cancelGraceMs', async () => {
    vi.useFakeTimers();
    const entered = deferred();
    const postStep: boolean[] = [];
    current = createTestAgent({
      tools: toolsWith(() => {
        entered.resolve();
        return new Promise<string>(() => {});
      }),
      script: oneCall,
      agent: { cancelGraceMs: 100 },
      register: (seams) =>
        seams.on('agent/post-step', (c) => {
          postStep.push(c.signal.aborted);
          return new Promise<void>(() => {});
        }),
    });
    current.agent.followup('go');
    await entered.promise;
    current.agent.cancel();
    await vi.advanceTimersByTimeAsync(150);
    expect(postStep).toEqual([true]);
    expect(current.eventTypes()).not.toContain('turn/end');
    await vi.advanceTimersByTimeAsync(100);
    await current.agent.whenIdle();
    expect(current.eventTypes().slice(-2)).toEqual(['step/end', 'turn/end']);
    expect(reasons(current.agent.log.events)).toEqual([{ kind: 'aborted' }]);
    current.expectInvariants();
  });
});
