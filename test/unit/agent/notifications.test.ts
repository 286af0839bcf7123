// seams.md § Notifications: Every notification of the agent, one test per row of the table.

import { defineLogEvent } from 'seamchart';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentWithEcho, disposeTestAgents, sleep, textOf } from './helpers.js';

afterEach(disposeTestAgents);

describe('seams.md § Notifications', () => {
  it('row agent/status: no event for the initial idle, never two equal in a row', async () => {
    const t = agentWithEcho([{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
    await t.agent.whenIdle();
    expect(t.notifications.of('agent/status')).toEqual([]);
    t.agent.followup('one');
    t.agent.followup('two');
    await t.agent.whenIdle();
    t.agent.followup('three');
    await t.agent.whenIdle();
    t.agent.cancel();
    await t.agent.dispose();
    const statuses = t.notifications.of('agent/status').map((p) => p.status);
    expect(statuses).toEqual(['running', 'idle', 'running', 'idle', 'disposed']);
    for (const p of t.notifications.of('agent/status')) expect(p.agentId).toBe(t.agent.id);
    t.expectInvariants();
  });

  it('order for one claimed message: status(running) → inbox/dequeue → turn/start', async () => {
    const t = agentWithEcho([{ text: 'a' }]);
    t.agent.followup('one');
    await t.agent.whenIdle();
    const order = t.notifications.events
      .filter(
        (n) =>
          n.seam === 'agent/status' ||
          n.seam === 'agent/inbox/dequeue' ||
          (n.seam === 'session/event' && (n.payload.event as { type: string }).type === 'turn/start'),
      )
      .map((n) => (n.seam === 'session/event' ? 'turn/start' : n.seam));
    expect(order.slice(0, 3)).toEqual(['agent/status', 'agent/inbox/dequeue', 'turn/start']);
    t.expectInvariants();
  });

  it('row seam/decided: after every waterfall, with turn', async () => {
    const t = agentWithEcho(
      [{ toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'x' } }] }, { error: { message: 'boom' } }],
      {
        register: (seams) => {
          seams.on('agent/prompt-submit', (_c, next) => next());
          seams.on('agent/turn-continuation', (_c, next) => next());
          seams.on('agent/request-error', (_c, next) => next());
          seams.on('tools/pre-execute', (_c, next) => next());
        },
      },
    );
    t.agent.followup('go');
    await t.agent.whenIdle();
    const decided = t.notifications.of('seam/decided');
    expect(decided.map((d) => d.seam)).toEqual([
      'agent/prompt-submit',
      'tools/pre-execute',
      'tools/post-execute',
      'agent/turn-continuation',
      'agent/request-error',
    ]);
    for (const d of decided) expect(d.turn).toBe(1);
    expect(decided[1]?.callId).toBe('c1');
    t.expectInvariants();
  });

  it('row seam/decided: also for waterfalls taken by default (no listener)', async () => {
    const t = agentWithEcho([{ text: 'a' }]);
    t.agent.followup('go');
    await t.agent.whenIdle();
    // "after every waterfall": a waterfall skipped for lack of listeners still reports its default.
    expect(t.notifications.of('seam/decided')).toMatchObject([
      { seam: 'agent/prompt-submit', decidedBy: 'default', decision: { kind: 'allow' }, turn: 1 },
      { seam: 'agent/turn-continuation', decidedBy: 'default', decision: { action: 'stop' }, turn: 1 },
    ]);
    t.expectInvariants();
  });

  it('header "payloads frozen; all carry agentId": every notification carries agentId and a frozen payload', async () => {
    const t = agentWithEcho([
      { toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'x' } }] },
      { text: 'b' },
    ]);
    t.agent.followup('one');
    t.agent.queue('two');
    await t.agent.whenIdle();
    t.agent.cancel();
    await t.agent.dispose();
    expect(t.notifications.events.length).toBeGreaterThan(10);
    // tools/result is a seam ({ exec, result }), not one of the notifications of the table.
    for (const n of t.notifications.events.filter((note) => note.seam !== 'tools/result')) {
      expect(n.payload.agentId, n.seam).toBe(t.agent.id);
      expect(Object.isFrozen(n.payload), n.seam).toBe(true);
    }
    t.expectInvariants();
  });

  it('row agent/inbox/enqueue: queue does not wake, steer while idle is a waking non-steering message', async () => {
    const t = agentWithEcho([{ text: 'a' }]);
    await t.agent.whenIdle();
    t.agent.queue('q');
    t.agent.steer('s');
    await t.agent.whenIdle();
    expect(t.notifications.of('agent/inbox/enqueue')).toMatchObject([
      {
        id: 'm1',
        steering: false,
        wakeup: false,
        source: { kind: 'user' },
        content: [{ type: 'text', text: 'q' }],
      },
      {
        id: 'm2',
        steering: false,
        wakeup: true,
        source: { kind: 'user' },
        content: [{ type: 'text', text: 's' }],
      },
    ]);
    t.expectInvariants();
  });

  it('row agent/status: no agent/status for the initial idle after an awaited session-start', async () => {
    const t = agentWithEcho([], {
      register: (seams) => seams.on('agent/session-start', async () => {}),
    });
    await t.agent.whenIdle();
    await sleep(5);
    expect(t.notifications.of('agent/status')).toEqual([]);
    t.expectInvariants();
  });

  it('row agent/error: a throwing notify listener is contained and reported as agent/error; agent/error listener failures go to the logger only', async () => {
    const t = agentWithEcho([{ text: 'a' }], {
      register: (seams) => {
        seams.on('agent/status', () => {
          throw new Error('status listener boom');
        });
        seams.on('agent/error', () => {
          throw new Error('error listener boom');
        });
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.eventData('turn/end')[0]?.reason).toEqual({ kind: 'completed' });
    const errors = t.notifications.of('agent/error');
    expect(errors.length).toBe(2); // running, idle
    expect(JSON.stringify(errors[0])).toMatch(/status listener boom/);
    expect(t.logger.lines.some((l) => /error listener boom|agent\/error/.test(l))).toBe(true);
    t.expectInvariants();
  });

  it('row session/event: appending from a session/event listener is refused and reported', async () => {
    const type = `audit/reentry-${Math.random().toString(36).slice(2)}`;
    defineLogEvent(type, z.object({}));
    let threw = false;
    const t = agentWithEcho([{ text: 'a' }], {
      register: (seams) =>
        seams.on('session/event', (e) => {
          if (e.event.type !== 'user/message') return;
          try {
            t.agent.log.append(type, {});
          } catch {
            threw = true;
          }
        }),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(threw).toBe(true);
    expect(t.eventData(type)).toEqual([]);
    t.expectInvariants();
  });

  it('row agent/cancel-requested: cancel with cause parent aborts the turn and reports the cause', async () => {
    const t = agentWithEcho([{ hang: true }]);
    t.agent.followup('one');
    await sleep(5);
    t.agent.cancel({ kind: 'parent' });
    await t.agent.whenIdle();
    expect(t.notifications.of('agent/cancel-requested')).toMatchObject([{ cause: { kind: 'parent' } }]);
    expect(t.eventData('turn/end')[0]?.reason).toEqual({ kind: 'aborted' });
    expect(t.eventTypes()).toEqual(['turn/start', 'user/message', 'step/start', 'step/end', 'turn/end']);
    t.expectInvariants();
  });

  it('row seam/decided: names the deciding listener (<plugin>.<function>, <seam>#<n>)', async () => {
    const t = agentWithEcho([{ text: 'a' }], {
      register: (seams) => {
        seams.use({
          name: 'pol',
          apply(s) {
            s.on('agent/prompt-submit', function check(c, next) {
              return textOf(c.content) === 'secret' ? { kind: 'block', reason: 'no secrets' } : next();
            });
          },
        });
        seams.on('agent/turn-continuation', () => ({ action: 'stop' }));
      },
    });
    t.agent.followup('secret');
    t.agent.followup('fine');
    await t.agent.whenIdle();
    expect(t.notifications.of('seam/decided')).toMatchObject([
      { seam: 'agent/prompt-submit', decidedBy: 'pol.check', decision: { kind: 'block' }, turn: 1 },
      { seam: 'agent/prompt-submit', decidedBy: 'default', turn: 2 },
      { seam: 'agent/turn-continuation', decidedBy: 'agent/turn-continuation#1', turn: 2 },
    ]);
    expect(t.eventData('turn/end').map((d) => d.reason)).toEqual([
      { kind: 'rejected', reason: 'no secrets' },
      { kind: 'completed' },
    ]);
    expect(t.model.requests.length).toBe(1);
    t.expectInvariants();
  });
});
