// surface.md § Public API: the agent handle: The agent handle's delivery methods, whenIdle, inject and log.

import { afterEach, describe, expect, it } from 'vitest';
import { agentWithEcho, disposeTestAgents, sleep, textOf } from './helpers.js';

afterEach(disposeTestAgents);

describe('surface.md § Public API: the agent handle', () => {
  it('whenIdle: waits for queued waking items and resolves when only non-waking items are queued', async () => {
    const t = agentWithEcho([{ delayMs: 10, text: 'a' }, { text: 'b' }]);
    t.agent.queue('q');
    await t.agent.whenIdle();
    expect(t.eventTypes()).toEqual([]);
    t.agent.followup('f');
    await t.agent.whenIdle();
    expect(t.eventData('turn/end').length).toBe(2);
    expect(t.agent.status).toBe('idle');
    t.expectInvariants();
  });

  it('inject: the default source is { kind: plugin, plugin: "" }', async () => {
    const t = agentWithEcho([]);
    await t.agent.whenIdle();
    t.agent.inject('ctx');
    await sleep(5);
    expect(t.eventData('context/message')[0]?.source).toEqual({ kind: 'plugin', plugin: '' });
    expect(t.eventData('turn/start')[0]?.trigger).toEqual({
      kind: 'injection',
      source: { kind: 'plugin', plugin: '' },
    });
    expect(t.notifications.of('agent/inbox/enqueue')).toEqual([]);
    t.expectInvariants();
  });

  it('followup/queue/steer: every delivery returns its message id, matching enqueue and dequeue', async () => {
    const t = agentWithEcho([{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
    const ids = [t.agent.queue('q'), t.agent.followup('f'), t.agent.steer('s')];
    expect(new Set(ids).size).toBe(3);
    await t.agent.whenIdle();
    expect(t.notifications.of('agent/inbox/enqueue').map((e) => e.id)).toEqual(ids);
    // q is claimed by the followup's wake-up; the steer lands in that open turn as steering; f is turn 2.
    expect(t.notifications.of('agent/inbox/dequeue')).toMatchObject([
      { id: ids[0], steering: false },
      { id: ids[2], steering: true },
      { id: ids[1], steering: false },
    ]);
    expect(t.eventData('steering/message').map((d) => textOf(d.content))).toEqual(['s']);
    t.expectInvariants();
  });

  it('followup: with contexts/meta: meta on user/message, contexts as context/messages, and prompt-submit default carries them', async () => {
    const t = agentWithEcho([{ text: 'a' }], {
      register: (seams) => seams.on('agent/prompt-submit', (_c, next) => next()),
    });
    t.agent.followup('one', {
      meta: { k: 1 },
      source: { kind: 'plugin', plugin: 'p' },
      contexts: [
        { content: [{ type: 'text', text: 'c1' }], source: { kind: 'plugin', plugin: 'p' }, meta: 'm' },
      ],
    });
    await t.agent.whenIdle();
    expect(t.eventData('user/message')[0]).toMatchObject({
      meta: { k: 1 },
      source: { kind: 'plugin', plugin: 'p' },
    });
    expect(t.eventData('context/message')).toEqual([
      { content: [{ type: 'text', text: 'c1' }], source: { kind: 'plugin', plugin: 'p' }, meta: 'm' },
    ]);
    expect(t.eventTypes().slice(0, 4)).toEqual([
      'turn/start',
      'user/message',
      'context/message',
      'step/start',
    ]);
    expect(t.eventData('turn/start')[0]?.trigger).toEqual({
      kind: 'message',
      source: { kind: 'plugin', plugin: 'p' },
      itemId: 'm1',
    });
    t.expectInvariants();
  });

  it('followup: delivery with invalid content throws synchronously and enqueues nothing', async () => {
    const t = agentWithEcho([]);
    expect(() => t.agent.followup(42 as never)).toThrow(TypeError);
    expect(() => t.agent.inject(42 as never)).toThrow(TypeError);
    expect(() => t.agent.followup('x', { source: { kind: 'nobody' } } as never)).toThrow(TypeError);
    expect(() => t.agent.cancel({ kind: 'nope' } as never)).toThrow(TypeError);
    await sleep(5);
    expect(t.notifications.of('agent/inbox/enqueue')).toEqual([]);
    t.expectInvariants();
  });

  it('agent.log: subscribe sees every append in order', async () => {
    const t = agentWithEcho([{ text: 'a' }]);
    const seen: number[] = [];
    const off = t.agent.log.subscribe((e) => void seen.push(e.seq));
    t.agent.followup('one');
    await t.agent.whenIdle();
    (off as () => void)();
    expect(seen).toEqual(t.agent.log.events.map((e) => e.seq));
    t.expectInvariants();
  });
});
