// seams.md § The seams (agent rows): The agent seams' rows of the table: mode, default, and what a throw or garbage does.

import { afterEach, describe, expect, it } from 'vitest';
import { agentWithEcho, disposeTestAgents, sleep, textOf } from './helpers.js';

afterEach(disposeTestAgents);

describe('seams.md § The seams (agent rows)', () => {
  it('row agent/session-start: fires exactly once, awaited before the first turn', async () => {
    const sources: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const t = agentWithEcho([{ text: 'a' }, { text: 'b' }], {
      register: (seams) =>
        seams.on('agent/session-start', async (c) => {
          sources.push(c.source);
          await gate;
          c.agent.inject('policy');
        }),
    });
    t.agent.followup('one');
    await sleep(20);
    expect(t.eventTypes()).toEqual([]);
    release();
    await t.agent.whenIdle();
    t.agent.followup('two');
    await t.agent.whenIdle();
    expect(sources).toEqual(['startup']);
    expect(t.eventData('turn/start').map((d) => (d.trigger as { kind: string }).kind)).toEqual([
      'injection',
      'message',
      'message',
    ]);
    expect(textOf(t.model.requests[0]?.messages[0]?.content)).toBe('policy');
    t.expectInvariants();
  });

  it('row agent/session-start: bounded by sessionStartTimeoutMs and the late listener is reported', async () => {
    const t = agentWithEcho([{ text: 'a' }], {
      agent: { sessionStartTimeoutMs: 30 },
      register: (seams) => {
        seams.on('agent/session-start', () => {}, { name: 'quick' });
        seams.on('agent/session-start', () => new Promise<void>(() => {}), { name: 'slow' });
        seams.on('agent/session-start', () => {}, { name: 'after' });
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.eventData('turn/end').map((d) => (d.reason as { kind: string }).kind)).toEqual(['completed']);
    // "reports the late listener": the report names it.
    expect(t.notifications.of('agent/error')).toMatchObject([
      {
        origin: 'agent/session-start',
        error: { code: 'SESSION_START_TIMEOUT', message: expect.stringContaining('listener "slow"') },
      },
    ]);
    t.expectInvariants();
  });

  it('row agent/request-error: a listener that throws counts as fail and is reported', async () => {
    const t = agentWithEcho([{ error: { message: 'o1', code: 'X' } }, { text: 'never' }], {
      register: (seams) =>
        seams.on('agent/request-error', () => {
          throw new Error('bad listener');
        }),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.eventData('turn/end')[0]?.reason).toMatchObject({
      kind: 'error',
      step: 1,
      message: 'o1',
      code: 'X',
    });
    expect(t.notifications.of('agent/error').length).toBeGreaterThanOrEqual(1);
    t.expectInvariants();
  });

  it('row agent/pre-step: a throw ends the turn error with that step number and no step/start', async () => {
    const t = agentWithEcho([{ text: 'a' }, { text: 'b' }], {
      register: (seams) =>
        seams.on('agent/pre-step', (c) => {
          if (c.turn === 1) throw new Error('pre boom');
        }),
    });
    t.agent.followup('one');
    t.agent.followup('two');
    await t.agent.whenIdle();
    expect(t.eventTypes().slice(0, 3)).toEqual(['turn/start', 'user/message', 'turn/end']);
    expect(t.eventData('turn/end')[0]?.reason).toMatchObject({ kind: 'error', step: 1 });
    expect(t.eventData('turn/end')[1]?.reason).toEqual({ kind: 'completed' });
    expect(t.notifications.of('agent/error').length).toBe(1);
    t.expectInvariants();
  });

  it('row agent/post-step: a throw ends the turn error after closing the step', async () => {
    const t = agentWithEcho([{ text: 'a' }], {
      register: (seams) =>
        seams.on('agent/post-step', () => {
          throw new Error('post boom');
        }),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.eventData('turn/end')[0]?.reason).toMatchObject({ kind: 'error', step: 1 });
    expect(t.notifications.of('agent/error').length).toBe(1);
    t.expectInvariants();
  });

  it('rows agent/turn-continuation and agent/turn-stop: a throw ends the turn error; one agent/error each', async () => {
    const t = agentWithEcho([{ text: 'a' }, { text: 'b' }, { text: 'c' }], {
      register: (seams) => {
        seams.on('agent/turn-continuation', (c, next) => {
          if (c.turn === 1) throw new Error('cont boom');
          return next();
        });
        seams.on('agent/turn-stop', (c) => {
          if (c.turn === 2) throw new Error('stop boom');
          return undefined;
        });
      },
    });
    t.agent.followup('one');
    t.agent.followup('two');
    t.agent.followup('three');
    await t.agent.whenIdle();
    expect(t.eventData('turn/end').map((d) => (d.reason as { kind: string }).kind)).toEqual([
      'error',
      'error',
      'completed',
    ]);
    expect(t.notifications.of('agent/error').length).toBe(2);
    t.expectInvariants();
  });

  it('column "returns garbage": an invalid waterfall decision is a listener failure naming the seam and the listener', async () => {
    const t = agentWithEcho([{ text: 'a' }], {
      register: (seams) =>
        seams.on('agent/prompt-submit', (() => ({ kind: 'nope' })) as never, { name: 'garbage' }),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    const reason = t.eventData('turn/end')[0]?.reason as { kind: string; step: number; message: string };
    expect(reason.kind).toBe('error');
    expect(reason.step).toBe(0);
    expect(reason.message).toMatch(/agent\/prompt-submit/);
    expect(reason.message).toMatch(/garbage/);
    expect(t.model.requests.length).toBe(0);
    t.expectInvariants();
  });

  it('row agent/turn-stop: the first non-undefined return wins and stops the chain', async () => {
    const order: string[] = [];
    const t = agentWithEcho([{ text: 'a' }], {
      register: (seams) => {
        seams.on('agent/turn-stop', () => void order.push('a'), { name: 'a' });
        seams.on(
          'agent/turn-stop',
          () => {
            order.push('b');
            return { action: 'stop', reason: 'r' } as const;
          },
          { name: 'b' },
        );
        seams.on('agent/turn-stop', () => void order.push('c'), { name: 'c' });
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(order).toEqual(['a', 'b']);
    expect(t.eventData('turn/end')[0]?.reason).toEqual({
      kind: 'completed',
      stoppedBy: 'b',
      stopReason: 'r',
    });
    t.expectInvariants();
  });

  it('row agent/request-error: sees priorFailures 0,1,2 and post-step does not run for a failed step', async () => {
    const prior: number[] = [];
    const post: number[] = [];
    const pre: number[] = [];
    const t = agentWithEcho([{ error: { message: 'e1' } }, { error: { message: 'e2' } }, { text: 'ok' }], {
      register: (seams) => {
        seams.on('agent/request-error', (c) => {
          prior.push(c.priorFailures);
          return { action: 'retry' } as const;
        });
        seams.on('agent/post-step', (c) => void post.push(c.step));
        seams.on('agent/pre-step', (c) => void pre.push(c.step));
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(prior).toEqual([0, 1]);
    expect(pre).toEqual([1, 2, 3]);
    expect(post).toEqual([3]);
    expect(t.eventData('turn/end')[0]?.reason).toEqual({ kind: 'completed' });
    t.expectInvariants();
  });

  it('row agent/turn-continuation: the default is continue after tool calls and stop otherwise', async () => {
    const defaults: unknown[] = [];
    const t = agentWithEcho(
      [{ toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'x' } }] }, { text: 'done' }],
      {
        register: (seams) =>
          seams.on('agent/turn-continuation', (c, next) => {
            defaults.push(c.defaultDecision);
            return next();
          }),
      },
    );
    t.agent.followup('go');
    await t.agent.whenIdle();
    expect(defaults).toEqual([{ action: 'continue' }, { action: 'stop' }]);
    t.expectInvariants();
  });
});
