// machines.md § agent machine: The agent machine's states and its CANCEL/dispose rules, through the public entry.

import { defineTool } from 'seamchart';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentWithEcho, disposeTestAgents, sleep, textOf } from './helpers.js';

afterEach(disposeTestAgents);

describe('machines.md § agent machine', () => {
  it('CANCEL: idle with nothing pending is a no-op with no event', async () => {
    const t = agentWithEcho([{ text: 'a' }]);
    await t.agent.whenIdle();
    const before = t.notifications.events.length;
    t.agent.cancel();
    await sleep(5);
    expect(t.notifications.events.slice(before)).toEqual([]);
    t.agent.queue('q');
    t.agent.cancel();
    await sleep(5);
    expect(t.notifications.of('agent/cancel-requested').length).toBe(1);
    expect(t.notifications.of('agent/inbox/discard').length).toBe(1);
    t.expectInvariants();
  });

  it('CANCEL keepInbox: keeps queued messages, which run as later turns', async () => {
    const t = agentWithEcho([{ hang: true }, { text: 'b' }, { text: 'c' }, { text: 'd' }]);
    t.agent.followup('one');
    t.agent.followup('two');
    t.agent.queue('three');
    await sleep(10);
    t.agent.cancel(undefined, { keepInbox: true });
    await t.agent.whenIdle();
    expect(t.eventData('turn/end').map((d) => (d.reason as { kind: string }).kind)).toEqual([
      'aborted',
      'completed',
    ]);
    // 'three' was queued without waking: it stays queued until a waking item arrives.
    t.agent.followup('four');
    await t.agent.whenIdle();
    expect(t.eventData('user/message').map((d) => textOf(d.content))).toEqual([
      'one',
      'two',
      'three',
      'four',
    ]);
    expect(t.notifications.of('agent/inbox/discard')).toEqual([]);
    expect(t.notifications.of('agent/cancel-requested').length).toBe(1);
    t.expectInvariants();
  });

  it('disposing: dispose is idempotent and delivery afterwards throws a clear error', async () => {
    const t = agentWithEcho([{ hang: true }]);
    t.agent.followup('one');
    t.agent.queue('two');
    await sleep(10);
    const a = t.agent.dispose();
    const b = t.agent.dispose();
    expect(a).toBe(b);
    await a;
    await t.agent.dispose();
    expect(t.eventData('turn/end')[0]?.reason).toEqual({ kind: 'disposed' });
    expect(t.notifications.of('agent/inbox/discard').length).toBe(1);
    expect(t.agent.status).toBe('disposed');
    for (const m of ['followup', 'queue', 'steer', 'inject'] as const) {
      expect(() => t.agent[m]('x')).toThrow(/disposed/);
    }
    expect(() => t.agent.cancel()).not.toThrow();
    expect(t.notifications.of('agent/status').map((s) => s.status)).toEqual(['running', 'disposed']);
    t.expectInvariants();
  });

  it('disposing: dispose while idle emits status disposed once and no discard', async () => {
    const t = agentWithEcho([]);
    await t.agent.dispose();
    expect(t.notifications.of('agent/status').map((s) => s.status)).toEqual(['disposed']);
    expect(t.notifications.of('agent/inbox/discard')).toEqual([]);
    t.expectInvariants();
  });

  it('CANCEL during a turn: cancel-requested first, then one discard with queued items and pending steering', async () => {
    const t = agentWithEcho([{ hang: true }, { text: 'b' }]);
    t.agent.followup('one');
    t.agent.followup('two');
    await new Promise((r) => setTimeout(r, 10));
    t.agent.steer('st');
    t.agent.cancel();
    await t.agent.whenIdle();
    const seq = t.notifications.events.filter(
      (n) => n.seam === 'agent/cancel-requested' || n.seam === 'agent/inbox/discard',
    );
    expect(seq.map((n) => n.seam)).toEqual(['agent/cancel-requested', 'agent/inbox/discard']);
    expect(
      (seq[1]!.payload as { items: readonly { id: string; steering: boolean }[] }).items
        .map((i) => i.steering)
        .sort(),
    ).toEqual([false, true]);
    expect(t.eventData('turn/end').map((d) => d.reason)).toEqual([{ kind: 'aborted' }]);
    expect(t.notifications.of('agent/error')).toEqual([]);
    expect(t.notifications.of('agent/status').map((s) => s.status)).toEqual(['running', 'idle']);
    // the next send runs normally
    t.agent.followup('three');
    await t.agent.whenIdle();
    expect(t.eventData('turn/end').map((d) => (d.reason as { kind: string }).kind)).toEqual([
      'aborted',
      'completed',
    ]);
    t.expectInvariants();
  });

  it('starting: CANCEL drops the queue; session-start still fires once', async () => {
    let release!: () => void;
    const sources: string[] = [];
    const t = agentWithEcho([{ text: 'a' }], {
      register: (seams) =>
        seams.on('agent/session-start', (c) => {
          sources.push(c.source);
          return new Promise<void>((r) => {
            release = r;
          });
        }),
    });
    t.agent.followup('one');
    t.agent.cancel();
    t.agent.cancel();
    release();
    await t.agent.whenIdle();
    expect(t.notifications.of('agent/cancel-requested').length).toBe(1);
    expect(t.notifications.of('agent/inbox/discard').length).toBe(1);
    expect(t.eventTypes()).toEqual([]);
    expect(sources).toEqual(['startup']);
    expect(t.notifications.of('agent/status')).toEqual([]);
    t.expectInvariants();
  });

  it('starting: whenIdle waits while session-start runs', async () => {
    let release!: () => void;
    const t = agentWithEcho([], {
      register: (seams) =>
        seams.on(
          'agent/session-start',
          () =>
            new Promise<void>((r) => {
              release = r;
            }),
        ),
    });
    let done = false;
    const idle = t.agent.whenIdle().then(() => {
      done = true;
    });
    await sleep(10);
    expect(done).toBe(false);
    release();
    await idle;
    expect(done).toBe(true);
    t.expectInvariants();
  });

  it('starting: dispose while session-start hangs finishes and fires session-start once', async () => {
    const sources: string[] = [];
    const t = agentWithEcho([], {
      register: (seams) =>
        seams.on('agent/session-start', (c) => {
          sources.push(c.source);
          return new Promise<void>(() => {});
        }),
    });
    t.agent.followup('one');
    await sleep(5);
    await t.agent.dispose();
    expect(sources).toEqual(['startup']);
    expect(t.notifications.of('agent/status').map((s) => s.status)).toEqual(['disposed']);
    expect(t.notifications.of('agent/inbox/discard').length).toBe(1);
    expect(() => t.agent.followup('x')).toThrow(/disposed/);
    t.expectInvariants();
  });

  it('running: a steer after turn/end (before the turn is done) becomes a queued message that fires prompt-submit', async () => {
    const prompts: string[] = [];
    const t = agentWithEcho([{ text: 'a' }, { text: 'b' }], {
      register: (seams) => {
        seams.on('agent/prompt-submit', (c, next) => {
          prompts.push(textOf(c.content));
          return next();
        });
        seams.on('session/event', (e) => {
          if (e.event.type === 'turn/end' && (e.event.data as { turn: number }).turn === 1)
            t.agent.steer('late');
        });
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(prompts).toEqual(['one', 'late']);
    expect(t.eventData('steering/message')).toEqual([]);
    t.expectInvariants();
  });

  it('idle: inject while idle writes an injection turn without a status change', async () => {
    const t = agentWithEcho([]);
    await t.agent.whenIdle();
    t.agent.inject('c', { meta: { a: 1 }, source: { kind: 'plugin', plugin: 'p' } });
    await t.agent.whenIdle();
    expect(t.eventTypes()).toEqual(['turn/start', 'context/message', 'turn/end']);
    expect(t.eventData('context/message')[0]).toEqual({
      content: [{ type: 'text', text: 'c' }],
      source: { kind: 'plugin', plugin: 'p' },
      meta: { a: 1 },
    });
    expect(t.eventData('turn/end')[0]?.reason).toEqual({ kind: 'completed' });
    expect(t.notifications.of('agent/status')).toEqual([]);
    t.expectInvariants();
  });

  it("on the turn's done: steering pending when the prompt is blocked is re-queued as a message and runs its own turn", async () => {
    const prompts: string[] = [];
    const t = agentWithEcho([{ text: 'a' }], {
      register: (seams) =>
        seams.on('agent/prompt-submit', (c, next) => {
          prompts.push(textOf(c.content));
          if (textOf(c.content) === 'bad') {
            c.agent.steer('later');
            return { kind: 'block', reason: 'no' };
          }
          return next();
        }),
    });
    t.agent.followup('bad');
    await t.agent.whenIdle();
    expect(prompts).toEqual(['bad', 'later']);
    expect(t.eventData('turn/end').map((d) => (d.reason as { kind: string }).kind)).toEqual([
      'rejected',
      'completed',
    ]);
    expect(t.eventData('steering/message')).toEqual([]);
    expect(t.notifications.of('agent/inbox/dequeue')).toMatchObject([
      { id: 'm1', steering: false },
      { id: 'm2', steering: false },
    ]);
    t.expectInvariants();
  });

  it('CANCEL keepInbox: re-queues the turn steering after the turn', async () => {
    const t = agentWithEcho([{ hang: true }, { text: 'b' }]);
    t.agent.followup('one');
    await sleep(5);
    t.agent.steer('st');
    t.agent.cancel(undefined, { keepInbox: true });
    await t.agent.whenIdle();
    expect(t.eventData('turn/end').map((d) => (d.reason as { kind: string }).kind)).toEqual([
      'aborted',
      'completed',
    ]);
    expect(t.eventData('user/message').map((d) => textOf(d.content))).toEqual(['one', 'st']);
    expect(t.eventData('steering/message')).toEqual([]);
    expect(t.notifications.of('agent/inbox/discard')).toEqual([]);
    t.expectInvariants();
  });

  it("CANCEL between turn/end and the turn's done: only drops the queue (and says so only when something was queued)", async () => {
    const t = agentWithEcho([{ text: 'a' }, { text: 'b' }], {
      register: (seams) =>
        seams.on('session/event', (e) => {
          if (e.event.type !== 'turn/end') return;
          const turn = (e.event.data as { turn: number }).turn;
          // After TURN_CLOSED reached the agent (a microtask later), before the turn's done.
          if (turn === 1)
            queueMicrotask(() => {
              t.agent.cancel();
              t.agent.followup('two');
              t.agent.cancel();
            });
        }),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.eventData('turn/end').map((d) => d.reason)).toEqual([{ kind: 'completed' }]);
    expect(t.notifications.of('agent/cancel-requested').length).toBe(1);
    expect(t.notifications.of('agent/inbox/discard')).toMatchObject([
      { items: [{ id: 'm2', steering: false }] },
    ]);
    expect(t.notifications.of('agent/status').map((x) => x.status)).toEqual(['running', 'idle']);
    t.expectInvariants();
  });

  it('disposing: dispose while idle with only non-waking items discards them once', async () => {
    const t = agentWithEcho([]);
    await t.agent.whenIdle();
    const id = t.agent.queue('q');
    await t.agent.dispose();
    expect(t.notifications.of('agent/inbox/discard')).toMatchObject([{ items: [{ id, steering: false }] }]);
    expect(t.notifications.of('agent/cancel-requested')).toEqual([]);
    await t.agent.whenIdle();
    t.expectInvariants();
  });

  it("on the turn's done: steering pending when a request fails for good is re-queued as a message", async () => {
    const t = agentWithEcho([{ delayMs: 15, error: { message: 'down' } }, { text: 'ok' }] as never);
    t.agent.followup('one');
    await sleep(5);
    t.agent.steer('st');
    await t.agent.whenIdle();
    expect(t.eventData('turn/end').map((d) => (d.reason as { kind: string }).kind)).toEqual([
      'error',
      'completed',
    ]);
    expect(t.eventData('user/message').map((d) => textOf(d.content))).toEqual(['one', 'st']);
    t.expectInvariants();
  });

  it('CANCEL: messages sent while an aborted batch drains are kept; an effective cancel with nothing queued emits no discard', async () => {
    const slow = defineTool({
      name: 'slow',
      description: 'slow',
      parameters: z.object({}),
      execute: () => sleep(30).then(() => 'late'),
    });
    const t = agentWithEcho(
      [{ toolCalls: [{ id: 'c1', name: 'slow', arguments: {} }] }, { text: 'two done' }],
      {
        tools: [slow],
      },
    );
    t.agent.followup('one');
    await sleep(10);
    t.agent.cancel();
    await sleep(5);
    t.agent.followup('two');
    await t.agent.whenIdle();
    expect(t.eventData('turn/end')).toEqual([
      { turn: 1, reason: { kind: 'aborted' } },
      { turn: 2, reason: { kind: 'completed' } },
    ]);
    expect(t.notifications.of('agent/cancel-requested').length).toBe(1);
    expect(t.notifications.of('agent/inbox/discard')).toEqual([]);
    t.expectInvariants();
  });
});
