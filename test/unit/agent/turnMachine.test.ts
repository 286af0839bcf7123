// machines.md § turn machine: The turn machine's rules that a user sees in the log.

import { afterEach, describe, expect, it } from 'vitest';
import { agentWithEcho, answeredStep, disposeTestAgents, sleep, textOf } from './helpers.js';

afterEach(disposeTestAgents);

describe('machines.md § turn machine', () => {
  it('end reasons: max-tokens is sticky and drops tool calls', async () => {
    let ran = 0;
    const t = agentWithEcho(
      [
        {
          text: 'partial',
          finish: 'max-tokens',
          toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'x' } }],
        } as never,
        { text: 'b' },
      ],
      {
        register: (seams) => {
          seams.on('tools/pre-execute', (_c, next) => {
            ran++;
            return next();
          });
          seams.on('agent/turn-continuation', (c) =>
            c.step === 1 ? { action: 'continue' } : { action: 'stop' },
          );
        },
      },
    );
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(ran).toBe(0);
    expect(t.eventTypes()).not.toContain('tool/call');
    const am = t.eventData('assistant/message');
    expect((am[0]!.content as { type: string }[]).some((b) => b.type === 'tool-call')).toBe(false);
    expect(t.eventData('turn/end')[0]?.reason).toEqual({ kind: 'max-tokens' });
    t.expectInvariants();
  });

  it('requestError: retry is bounded by maxRequestRetries', async () => {
    const t = agentWithEcho(
      [
        { error: { message: 'o1' } },
        { error: { message: 'o2' } },
        { error: { message: 'o3' } },
        { text: 'never' },
      ],
      {
        agent: { maxRequestRetries: 2 },
        register: (seams) => seams.on('agent/request-error', () => ({ action: 'retry' })),
      },
    );
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.model.requests.length).toBe(3);
    const reason = t.eventData('turn/end')[0]?.reason as { kind: string; step: number; message: string };
    expect(reason.kind).toBe('error');
    expect(reason.step).toBe(3);
    expect(reason.message).toBe('o3');
    t.expectInvariants();
  });

  it('continuation: pending steering overrides a continuation stop', async () => {
    let stops = 0;
    const t = agentWithEcho([{ text: 'a' }, { text: 'b' }], {
      register: (seams) => {
        seams.on('agent/turn-continuation', (c) => {
          if (c.step === 1) c.agent.steer('more');
          return { action: 'stop' };
        });
        seams.on('agent/turn-stop', () => void stops++);
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.eventData('step/start').length).toBe(2);
    expect(t.eventData('steering/message').map((d) => textOf(d.content))).toEqual(['more']);
    // turn-stop runs after every continuation decision (it can only stop).
    expect(stops).toBe(2);
    expect(t.eventData('turn/end')[0]?.reason).toEqual({ kind: 'completed' });
    t.expectInvariants();
  });

  it('INJECT routing: inject while the request is in flight lands after assistant/message, before step/end', async () => {
    const t = agentWithEcho([{ delayMs: 20, text: 'a' }]);
    t.agent.followup('one');
    await sleep(5);
    t.agent.inject('mid');
    await t.agent.whenIdle();
    expect(t.eventTypes()).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'context/message',
      'step/end',
      'turn/end',
    ]);
    t.expectInvariants();
  });

  it('requestError: maxRequestRetries 0 means no retry even when a listener asks', async () => {
    const t = agentWithEcho([{ error: { message: 'e1' } }, { text: 'never' }], {
      agent: { maxRequestRetries: 0 },
      register: (seams) => seams.on('agent/request-error', () => ({ action: 'retry' })),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.model.requests.length).toBe(1);
    expect(t.eventData('turn/end')[0]?.reason).toMatchObject({ kind: 'error', step: 1, message: 'e1' });
    t.expectInvariants();
  });

  it('drainSteering: steer with meta/contexts while a turn is open: steering/message keeps meta and source', async () => {
    const t = agentWithEcho([{ delayMs: 20, text: 'a' }, { text: 'b' }]);
    t.agent.followup('one');
    await sleep(5);
    t.agent.steer('st', {
      meta: { m: 1 },
      source: { kind: 'plugin', plugin: 'p' },
      contexts: [{ content: [{ type: 'text', text: 'sc' }], source: { kind: 'plugin', plugin: 'p' } }],
    });
    await t.agent.whenIdle();
    expect(t.eventData('steering/message')).toEqual([
      {
        turn: 1,
        content: [{ type: 'text', text: 'st' }],
        source: { kind: 'plugin', plugin: 'p' },
        meta: { m: 1 },
        itemId: 'm2',
      },
    ]);
    expect(t.eventTypes()).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'steering/message',
      'context/message',
      'step/end',
      ...answeredStep,
      'turn/end',
    ]);
    t.expectInvariants();
  });
});
