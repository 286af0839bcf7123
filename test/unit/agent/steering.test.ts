import { afterEach, describe, expect, it } from 'vitest';
import { coreTurnEvents } from '../../../session/index.js';
import { answeredStep, createTestAgent, reasons, sleep, type TestAgent, textOf } from './helpers.js';

let current: TestAgent | undefined;
afterEach(async () => {
  await current?.agent.dispose();
  current = undefined;
});

const text = (t: string) => [{ type: 'text' as const, text: t }];

describe('steering, continuation and injection', () => {
  it('L09 continue{reason} is recorded as a steering/message at the start of the next step of the same turn', async () => {
    let asked = 0;
    current = createTestAgent({
      script: [{ text: 'first' }, { text: 'second' }],
      register: (seams) =>
        seams.on('agent/turn-continuation', (_c, next) =>
          asked++ === 0
            ? {
                action: 'continue',
                reason: { content: text('keep going'), source: { kind: 'plugin', plugin: 'loop' } },
              }
            : next(),
        ),
    });
    current.agent.followup('go');
    await current.agent.whenIdle();
    expect(current.eventTypes()).toEqual([
      'turn/start',
      'user/message',
      ...answeredStep,
      'steering/message',
      ...answeredStep,
      'turn/end',
    ]);
    expect(current.eventData('steering/message')[0]).toMatchObject({ turn: 1, content: text('keep going') });
    const steeringEnqueues = current.notifications
      .of('agent/inbox/enqueue')
      .filter((e) => e.steering === true);
    expect(steeringEnqueues).toEqual([expect.objectContaining({ steering: true, wakeup: true })]);
    current.expectInvariants();
  });

  it('L11 a terminal stop discards pending steering once and keeps the queued followup for the next turn', async () => {
    let steered = false;
    current = createTestAgent({
      script: [{ text: 'a' }, { text: 'b' }],
      register: (seams) => {
        seams.on('agent/turn-continuation', (c, next) => {
          if (!steered) {
            steered = true;
            c.agent.steer('x');
            c.agent.followup('y');
          }
          return next();
        });
        seams.on('agent/turn-stop', () => ({ action: 'stop', reason: 'enough' }), { name: 'stopper' });
      },
    });
    current.agent.followup('start');
    await current.agent.whenIdle();
    const discards = current.notifications.of('agent/inbox/discard');
    const steerId = current.notifications
      .of('agent/inbox/enqueue')
      .find((p) => textOf(p.content as never) === 'x')?.id;
    expect(discards).toEqual([{ agentId: current.agent.id, items: [{ id: steerId, steering: true }] }]);
    expect(current.eventTypes()).not.toContain('steering/message');
    expect(reasons(current.agent.log.events)[0]).toEqual({
      kind: 'completed',
      stoppedBy: 'stopper',
      stopReason: 'enough',
    });
    expect(current.eventData('user/message').map((d) => textOf(d.content as never))).toEqual(['start', 'y']);
    current.expectInvariants();
  });

  it('L12 steer() during the request lands as steering/message before step 2 of the same turn; steer() while idle is an ordinary turn', async () => {
    let prompts = 0;
    current = createTestAgent({
      script: [{ delayMs: 30, text: 'a' }, { text: 'b' }, { text: 'c' }],
      register: (seams) =>
        seams.on('agent/prompt-submit', (_c, next) => {
          prompts++;
          return next();
        }),
    });
    current.agent.followup('go');
    await sleep(5);
    current.agent.steer('also this');
    await current.agent.whenIdle();
    expect(current.eventTypes()).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'steering/message',
      'step/end',
      ...answeredStep,
      'turn/end',
    ]);
    expect(current.model.requests[1]?.messages.map((m) => textOf(m.content as never))).toEqual([
      'go',
      'a',
      'also this',
    ]);
    current.agent.steer('later');
    await current.agent.whenIdle();
    expect(prompts).toBe(2);
    expect(current.eventData('user/message').map((d) => textOf(d.content as never))).toEqual(['go', 'later']);
    current.expectInvariants();
  });

  it('L13 inject() from pre-step lands before step/start, during the request after assistant/message, while idle as an injection turn', async () => {
    let injected = false;
    current = createTestAgent({
      script: [{ delayMs: 30, text: 'a' }],
      register: (seams) =>
        seams.on('agent/pre-step', (c) => {
          if (!injected) c.agent.inject('from pre-step');
          injected = true;
        }),
    });
    current.agent.followup('go');
    await sleep(5);
    current.agent.inject('in flight');
    await current.agent.whenIdle();
    current.agent.inject('while idle');
    await current.agent.whenIdle();
    const rows = coreTurnEvents(current.agent.log.events).map((e) =>
      e.type === 'context/message' ? `context:${textOf((e.data as { content: never }).content)}` : e.type,
    );
    expect(rows).toEqual([
      'turn/start',
      'user/message',
      'context:from pre-step',
      'step/start',
      'assistant/message',
      'context:in flight',
      'step/end',
      'turn/end',
      'turn/start',
      'context:while idle',
      'turn/end',
    ]);
    expect(coreTurnEvents(current.agent.log.events)[8]?.data).toMatchObject({
      turn: 2,
      trigger: { kind: 'injection' },
    });
    expect(current.model.requests[0]?.messages.map((m) => textOf(m.content as never))).toEqual([
      'go',
      'from pre-step',
    ]);
    current.expectInvariants();
  });
});
