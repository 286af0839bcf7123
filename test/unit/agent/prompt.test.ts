import { afterEach, describe, expect, it } from 'vitest';
import type { HookContext } from '../../../kernel/index.js';
import { createTestAgent, oneStepTurn, reasons, type TestAgent, textOf } from './helpers.js';

let current: TestAgent | undefined;
afterEach(async () => {
  await current?.agent.dispose();
  current = undefined;
});

const text = (t: string) => [{ type: 'text' as const, text: t }];
const ctx = (t: string): HookContext => ({ content: text(t), source: { kind: 'plugin', plugin: 'test' } });

describe('prompt-submit and one-send-one-turn', () => {
  it('L01 a pass-through prompt-submit records turn/start, user/message, one step and turn/end{completed}', async () => {
    current = createTestAgent({
      script: [{ text: 'hi' }],
      register: (seams) => seams.on('agent/prompt-submit', (_ctx, next) => next()),
    });
    current.agent.followup('hello');
    await current.agent.whenIdle();
    expect(current.eventTypes()).toEqual(oneStepTurn);
    expect(reasons(current.agent.log.events)).toEqual([{ kind: 'completed' }]);
    expect(textOf(current.eventData<{ content: never }>('user/message')[0]?.content)).toBe('hello');
    current.expectInvariants();
  });

  it('L02 allow{content} rewrites the recorded prompt and the model request', async () => {
    current = createTestAgent({
      script: [{ text: 'ok' }],
      register: (seams) =>
        seams.on('agent/prompt-submit', () => ({ kind: 'allow', content: text('rewritten') })),
    });
    current.agent.followup('original');
    await current.agent.whenIdle();
    expect(textOf(current.eventData<{ content: never }>('user/message')[0]?.content)).toBe('rewritten');
    expect(current.model.requests[0]?.messages).toEqual([{ role: 'user', content: text('rewritten') }]);
    current.expectInvariants();
  });

  it('L03 allow{additionalContexts} records one context/message per context right after user/message, visible in the first request', async () => {
    current = createTestAgent({
      script: [{ text: 'ok' }],
      register: (seams) =>
        seams.on('agent/prompt-submit', async (_ctx, next) => {
          await next();
          return { kind: 'allow', additionalContexts: [ctx('one'), ctx('two')] };
        }),
    });
    current.agent.followup('prompt');
    await current.agent.whenIdle();
    expect(current.eventTypes().slice(0, 5)).toEqual([
      'turn/start',
      'user/message',
      'context/message',
      'context/message',
      'step/start',
    ]);
    expect(current.model.requests[0]?.messages.map((m) => textOf(m.content as never))).toEqual([
      'prompt',
      'one',
      'two',
    ]);
    current.expectInvariants();
  });

  it('L04 a block records prompt/blocked with the original content and turn/end{rejected}, runs no step and drops the attached contexts', async () => {
    current = createTestAgent({
      script: [{ text: 'never' }],
      register: (seams) =>
        seams.on('agent/prompt-submit', (c, next) =>
          textOf(c.content as never).includes('rm -rf') ? { kind: 'block', reason: 'destructive' } : next(),
        ),
    });
    current.agent.followup('rm -rf /', { contexts: [ctx('attached')] });
    await current.agent.whenIdle();
    expect(current.eventTypes()).toEqual(['turn/start', 'prompt/blocked', 'turn/end']);
    expect(current.eventData('prompt/blocked')[0]).toMatchObject({
      content: text('rm -rf /'),
      reason: 'destructive',
    });
    expect(reasons(current.agent.log.events)).toEqual([{ kind: 'rejected', reason: 'destructive' }]);
    expect(current.model.requests).toHaveLength(0);
    current.expectInvariants();
  });

  it('L05 same-tick sends "secret" and "safe" with a policy blocking "secret" give a rejected turn, then a completed one', async () => {
    current = createTestAgent({
      script: [{ text: 'fine' }],
      register: (seams) =>
        seams.on('agent/prompt-submit', (c, next) =>
          textOf(c.content as never) === 'secret' ? { kind: 'block', reason: 'no secrets' } : next(),
        ),
    });
    current.agent.followup('secret');
    current.agent.followup('safe');
    await current.agent.whenIdle();
    expect(reasons(current.agent.log.events)).toEqual([
      { kind: 'rejected', reason: 'no secrets' },
      { kind: 'completed' },
    ]);
    expect(current.eventData('user/message').map((d) => textOf(d.content as never))).toEqual(['safe']);
    current.expectInvariants();
  });

  it('L06 a prompt-submit listener that throws once ends that turn error{step:0}; the next message still runs', async () => {
    let calls = 0;
    current = createTestAgent({
      script: [{ text: 'second answer' }],
      register: (seams) =>
        seams.on('agent/prompt-submit', (_c, next) => {
          if (calls++ === 0) throw new Error('policy crashed');
          return next();
        }),
    });
    current.agent.followup('first');
    current.agent.followup('second');
    await current.agent.whenIdle();
    expect(reasons(current.agent.log.events)).toEqual([
      expect.objectContaining({ kind: 'error', step: 0 }),
      { kind: 'completed' },
    ]);
    expect(current.notifications.of('agent/status').map((p) => p.status)).toEqual(['running', 'idle']);
    expect(current.model.requests).toHaveLength(1);
    expect(current.model.requests[0]?.messages.map((m) => textOf(m.content as never))).toEqual(['second']);
    current.expectInvariants();
  });

  it('L07 five same-tick sends run five turns, one message each, in order', async () => {
    current = createTestAgent({ script: ['1', '2', '3', '4', '5'].map((t) => ({ text: `answer ${t}` })) });
    for (const n of ['1', '2', '3', '4', '5']) current.agent.followup(`message ${n}`);
    await current.agent.whenIdle();
    const events = current.agent.log.events;
    const turns = events.filter((e) => e.type === 'turn/start').map((e) => (e.data as { turn: number }).turn);
    expect(turns).toEqual([1, 2, 3, 4, 5]);
    expect(current.eventData('user/message').map((d) => textOf(d.content as never))).toEqual([
      'message 1',
      'message 2',
      'message 3',
      'message 4',
      'message 5',
    ]);
    // Turn k+1 starts only after turn k's turn/end.
    const boundaries = events
      .filter((e) => e.type === 'turn/start' || e.type === 'turn/end')
      .map((e) => e.type);
    expect(boundaries).toEqual(Array.from({ length: 5 }, () => ['turn/start', 'turn/end']).flat());
    expect(current.notifications.of('agent/status').map((p) => p.status)).toEqual(['running', 'idle']);
    current.expectInvariants();
  });

  it('L08 a session-start listener that injects "policy" produces injection turn 1, seen by the first model request', async () => {
    const sources: string[] = [];
    current = createTestAgent({
      script: [{ text: 'ok' }],
      register: (seams) => {
        seams.on('agent/session-start', () => {
          throw new Error('broken listener');
        });
        seams.on('agent/session-start', (c) => {
          sources.push(c.source);
          c.agent.inject('policy');
        });
      },
    });
    current.agent.followup('hello');
    await current.agent.whenIdle();
    const boundaries = current.agent.log.events
      .filter((e) => e.type === 'turn/start')
      .map((e) => e.data as { turn: number; trigger: { kind: string } });
    expect(boundaries.map((b) => [b.turn, b.trigger.kind])).toEqual([
      [1, 'injection'],
      [2, 'message'],
    ]);
    expect(current.eventTypes().slice(0, 4)).toEqual([
      'turn/start',
      'context/message',
      'turn/end',
      'turn/start',
    ]);
    expect(current.model.requests[0]?.messages.map((m) => textOf(m.content as never))).toEqual([
      'policy',
      'hello',
    ]);
    expect(sources).toEqual(['startup']);
    expect(current.notifications.of('agent/error')).toHaveLength(1);
    current.expectInvariants();
  });
});
