import { afterEach, describe, expect, it } from 'vitest';
import { coreTurnEvents } from '../../../session/index.js';
import { createTestAgent, sleep, type TestAgent, textOf } from './helpers.js';

let current: TestAgent | undefined;
afterEach(async () => {
  await current?.agent.dispose();
  current = undefined;
});

describe('the inbox', () => {
  it('L16 queue() alone starts no turn; a later followup() runs both, the queued one first', async () => {
    current = createTestAgent({ script: [{ text: 'one' }, { text: 'two' }] });
    current.agent.queue('quiet');
    await sleep(5);
    await current.agent.whenIdle();
    expect(coreTurnEvents(current.agent.log.events)).toHaveLength(0);
    expect(current.agent.status).toBe('idle');
    current.agent.followup('loud');
    await current.agent.whenIdle();
    expect(current.eventData('user/message').map((d) => textOf(d.content as never))).toEqual([
      'quiet',
      'loud',
    ]);
    expect(current.notifications.of('agent/inbox/enqueue').map((p) => p.wakeup)).toEqual([false, true]);
    current.expectInvariants();
  });

  it('L17 every enqueue ends in exactly one dequeue or discard across sends, steering, cancel and dispose', async () => {
    current = createTestAgent({
      script: [{ delayMs: 20, text: 'a' }, { text: 'b' }, { hang: true }],
    });
    const { agent } = current;
    agent.followup('first');
    await sleep(5);
    agent.steer('steer during request');
    agent.queue('queued quietly');
    await agent.whenIdle();
    agent.followup('to be cancelled');
    await sleep(5);
    agent.steer('dropped steering');
    agent.followup('dropped message');
    agent.cancel();
    await agent.whenIdle();
    agent.queue('left for dispose');
    await agent.dispose();
    const kinds = current.notifications.events
      .filter((n) => n.seam.startsWith('agent/inbox/'))
      .map((n) => n.seam);
    expect(kinds).toContain('agent/inbox/discard');
    expect(current.notifications.of('agent/inbox/enqueue')).toHaveLength(7);
    current.expectInvariants();
  });
});
