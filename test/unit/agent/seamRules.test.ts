// seams.md § Rules that must hold (agent): The agent-side rules that follow from the design note.

import { createSeams, defineLogEvent } from 'seamchart';
import { createTestAgent } from 'seamchart/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentWithEcho, disposeTestAgents, sleep, textOf } from './helpers.js';

afterEach(disposeTestAgents);

describe('seams.md § Rules that must hold (agent)', () => {
  it('rule listeners snapshotted per turn: a listener added mid-turn takes effect from the next turn', async () => {
    const calls: number[] = [];
    const t = agentWithEcho([{ delayMs: 20, text: 'a' }, { text: 'b' }], {
      register: (seams) =>
        seams.on(
          'agent/pre-step',
          () => {
            seams.on('agent/post-step', (c) => void calls.push(c.turn));
          },
          { name: 'adder' },
        ),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(calls).toEqual([]);
    t.agent.followup('two');
    await t.agent.whenIdle();
    expect(calls[0]).toBe(2);
    t.expectInvariants();
  });

  it('rule prompt-submit: steering recorded as steering never fires prompt-submit; a steer while idle does', async () => {
    const prompts: string[] = [];
    const t = agentWithEcho([{ delayMs: 30, text: 'a' }, { text: 'b' }, { text: 'c' }], {
      register: (seams) =>
        seams.on('agent/prompt-submit', (c, next) => {
          prompts.push(textOf(c.content));
          return next();
        }),
    });
    t.agent.followup('one');
    await sleep(10);
    t.agent.steer('steer-in-turn');
    await t.agent.whenIdle();
    expect(prompts).toEqual(['one']);
    expect(t.eventData('steering/message').map((d) => textOf(d.content))).toEqual(['steer-in-turn']);
    t.agent.steer('steer-idle');
    await t.agent.whenIdle();
    expect(prompts).toEqual(['one', 'steer-idle']);
    expect(t.eventData('user/message').map((d) => textOf(d.content))).toEqual(['one', 'steer-idle']);
    t.expectInvariants();
  });

  // continue{reason} → same-turn steering/message is L09 in test/unit/agent/steering.test.ts.

  it('rule turn-stop: discards pending steering with one discard and records stoppedBy/stopReason', async () => {
    const t = agentWithEcho([{ text: 'a' }, { text: 'b' }, { text: 'c' }], {
      register: (seams) => {
        seams.on('agent/turn-continuation', (c, next) => {
          if (c.turn > 1) return next();
          c.agent.steer('x');
          c.agent.steer('x2');
          c.agent.followup('y');
          return next();
        });
        seams.on('agent/turn-stop', () => ({ action: 'stop', reason: 'enough' }), { name: 'stopper' });
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    const discards = t.notifications.of('agent/inbox/discard');
    expect(discards.length).toBe(1);
    expect(discards[0]!.items.map((i) => i.steering)).toEqual([true, true]);
    const ends = t.eventData('turn/end');
    expect(ends[0]?.reason).toEqual({ kind: 'completed', stoppedBy: 'stopper', stopReason: 'enough' });
    expect(t.eventData('user/message').map((d) => textOf(d.content))).toEqual(['one', 'y']);
    expect(t.eventData('steering/message')).toEqual([]);
    t.expectInvariants();
  });

  it('rule plugin log events: agent.log.append of a plugin type works while a turn is open and is refused outside', async () => {
    const type = `audit/probe-${Math.random().toString(36).slice(2)}`;
    defineLogEvent(type, z.object({ n: z.number() }));
    const t = agentWithEcho([{ text: 'a' }], {
      register: (seams) => seams.on('agent/pre-step', (c) => void c.agent.log.append(type, { n: c.step })),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.eventData(type)).toEqual([{ n: 1 }]);
    expect(() => t.agent.log.append(type, { n: 9 })).toThrow();
    expect(() => t.agent.log.append('user/message', { content: [], source: { kind: 'user' } })).toThrow();
    t.expectInvariants();
  });

  it('rule turn-stop: with nothing pending it emits no discard and records stoppedBy', async () => {
    const t = agentWithEcho([{ text: 'a' }], {
      register: (seams) => seams.on('agent/turn-stop', () => ({ action: 'stop' }), { name: 'st' }),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.notifications.of('agent/inbox/discard')).toEqual([]);
    expect(t.eventData('turn/end')[0]?.reason).toEqual({ kind: 'completed', stoppedBy: 'st' });
    t.expectInvariants();
  });

  it('rule agent handle: the agent in a seam ctx is the agent (id, status running)', async () => {
    let seen: { id: string; status: string } | undefined;
    const t = agentWithEcho([{ text: 'a' }], {
      register: (seams) =>
        seams.on('agent/pre-step', (c) => {
          seen = { id: c.agent.id, status: c.agent.status };
        }),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(seen).toEqual({ id: t.agent.id, status: 'running' });
    t.expectInvariants();
  });

  it('rule frozen contexts: seam contexts are frozen', async () => {
    const frozen: boolean[] = [];
    const t = agentWithEcho([{ text: 'a' }], {
      register: (seams) => {
        seams.on('agent/prompt-submit', (c, next) => {
          frozen.push(Object.isFrozen(c));
          return next();
        });
        seams.on('agent/pre-step', (c) => void frozen.push(Object.isFrozen(c)));
        seams.on('agent/turn-continuation', (c, next) => {
          frozen.push(Object.isFrozen(c));
          return next();
        });
        seams.on('agent/turn-stop', (c) => void frozen.push(Object.isFrozen(c)));
        seams.on('agent/session-start', (c) => void frozen.push(Object.isFrozen(c)));
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(frozen).toEqual([true, true, true, true, true]);
    t.expectInvariants();
  });

  it('rule listeners snapshotted per turn: a listener added mid-turn to a seam that already has listeners waits for the next turn', async () => {
    const late: string[] = [];
    let added = false;
    const t = agentWithEcho([{ text: 'a' }, { text: 'b' }, { text: 'c' }], {
      register: (seams) => {
        seams.on('agent/pre-step', (c) => {
          if (added) return;
          added = true;
          seams.on('agent/pre-step', (d) => void late.push(`pre t${d.turn}s${d.step}`));
          seams.on('agent/turn-continuation', (d, next) => {
            late.push(`cont t${d.turn}s${d.step}`);
            return next();
          });
          seams.on('agent/prompt-submit', (d, next) => {
            late.push(`prompt t${d.turn}`);
            return next();
          });
          c.agent.steer('again');
        });
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.eventData('step/start').length).toBe(2);
    expect(late).toEqual([]);
    t.agent.followup('two');
    await t.agent.whenIdle();
    expect(late).toEqual(['prompt t2', 'pre t2s1', 'cont t2s1']);
    t.expectInvariants();
  });

  it('rule listeners snapshotted per turn: a listener disposed mid-turn still sees the rest of that turn (snapshot), not the next', async () => {
    const calls: string[] = [];
    const t = agentWithEcho([{ text: 'a' }, { text: 'b' }, { text: 'c' }], {
      register: (seams) => {
        const off = seams.on('agent/post-step', (c) => void calls.push(`post t${c.turn}s${c.step}`));
        seams.on('agent/pre-step', (c) => {
          if (c.turn === 1 && c.step === 1) {
            off();
            c.agent.steer('again');
          }
        });
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    t.agent.followup('two');
    await t.agent.whenIdle();
    expect(calls.every((c) => c.startsWith('post t1'))).toBe(true);
    t.expectInvariants();
  });

  it('registry option agent: agent-filtered listeners only see their agent', async () => {
    const seams = createSeams();
    const seen: string[] = [];
    seams.on('agent/pre-step', (c) => void seen.push(c.agent.id), { agent: 'A' });
    const a = createTestAgent({ seams, script: [{ text: 'x' }], options: { id: 'A' } });
    const b = createTestAgent({ seams, script: [{ text: 'x' }], options: { id: 'B' } });
    a.agent.followup('1');
    b.agent.followup('2');
    await Promise.all([a.agent.whenIdle(), b.agent.whenIdle()]);
    await Promise.all([a.agent.dispose(), b.agent.dispose()]);
    expect(seen).toEqual(['A']);
    a.expectInvariants();
    b.expectInvariants();
  });

  it('rule prompt-submit: runs inside the opened turn, before the prompt is recorded, with the turn and source', async () => {
    const seen: unknown[] = [];
    const t = agentWithEcho([{ text: 'a' }], {
      register: (seams) =>
        seams.on('agent/prompt-submit', (c, next) => {
          seen.push({
            last: c.agent.log.events.at(-1)?.type,
            turn: c.turn,
            source: c.source,
            text: textOf(c.content),
            status: c.agent.status,
          });
          return next();
        }),
    });
    t.agent.followup('hi', { source: { kind: 'plugin', plugin: 'p' } });
    await t.agent.whenIdle();
    expect(seen).toEqual([
      { last: 'turn/start', turn: 1, source: { kind: 'plugin', plugin: 'p' }, text: 'hi', status: 'running' },
    ]);
    t.expectInvariants();
  });

  it('rule plugin log events: refused while no turn is open (session-start, idle)', async () => {
    const type = `audit/outside-${Math.random().toString(36).slice(2)}`;
    defineLogEvent(type, z.object({}));
    let refused = false;
    const t = agentWithEcho([], {
      register: (seams) =>
        seams.on('agent/session-start', (c) => {
          try {
            c.agent.log.append(type, {});
          } catch (error) {
            refused = /NO_OPEN_TURN|no turn|open turn/i.test(
              `${(error as { code?: string }).code} ${String(error)}`,
            );
          }
        }),
    });
    await t.agent.whenIdle();
    expect(refused).toBe(true);
    expect(t.agent.log.events).toEqual([]);
    t.expectInvariants();
  });

  for (const seam of [
    'agent/prompt-submit',
    'agent/pre-step',
    'agent/post-step',
    'agent/turn-continuation',
    'agent/turn-stop',
    'agent/request-error',
  ] as const) {
    it(`rule cancellation never waits for a listener: cancel leaves ${seam} at once when its listener never settles`, async () => {
      const t = agentWithEcho(
        seam === 'agent/request-error'
          ? [{ error: { message: 'x' } }, { text: 'b' }]
          : [{ text: 'a' }, { text: 'b' }],
        {
          register: (seams) =>
            seams.on(seam, ((c: { turn: number }, next?: () => unknown) =>
              c.turn === 1 ? new Promise(() => {}) : next?.()) as never),
        },
      );
      t.agent.followup('one');
      await sleep(10);
      t.agent.cancel();
      await t.agent.whenIdle();
      expect(t.eventData('turn/end').map((d) => d.reason)).toEqual([{ kind: 'aborted' }]);
      expect(t.notifications.of('agent/error')).toEqual([]);
      t.agent.followup('two');
      await t.agent.whenIdle();
      expect(t.eventData('turn/end').length).toBe(2);
      t.expectInvariants();
    });
  }
});
