import { describe, expect, test, vi } from 'vitest';
import { createSeams, Seam } from '../../../seams/index.js';
import { makeAgent, makeLogger } from './helpers.js';

const flush = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('notify', () => {
  test('S05 a throwing and a rejecting listener are contained and reported with seam and listener; the others run', async () => {
    const logger = makeLogger();
    const seams = createSeams({ logger });
    const onContainedError = vi.fn();
    const seen: string[] = [];
    seams.on(Seam.status, () => void seen.push('first'));
    seams.on(
      Seam.status,
      () => {
        throw new Error('sync boom');
      },
      { name: 'thrower' },
    );
    seams.on(Seam.status, async () => Promise.reject(new Error('async boom')), { name: 'rejecter' });
    seams.on(Seam.status, () => void seen.push('last'));

    expect(() =>
      seams.notify(Seam.status, { agentId: 'a', status: 'running' }, { agentId: 'a', onContainedError }),
    ).not.toThrow();
    await flush();

    expect(seen).toEqual(['first', 'last']);
    expect(logger.error.mock.calls.map(([message]) => message)).toMatchInlineSnapshot(`
      [
        "Listener "thrower" on seam "agent/status" failed: sync boom",
        "Listener "rejecter" on seam "agent/status" failed: async boom",
      ]
    `);
    expect(logger.error).toHaveBeenCalledWith(expect.any(String), {
      seam: 'agent/status',
      listener: 'thrower',
      error: expect.objectContaining({ message: 'sync boom' }),
    });
    expect(
      onContainedError.mock.calls.map(([failure]) => [failure.seam, failure.listener, failure.error.code]),
    ).toEqual([
      ['agent/status', 'thrower', 'LISTENER_FAILED'],
      ['agent/status', 'rejecter', 'LISTENER_FAILED'],
    ]);
  });

  test('S05 failures of agent/error listeners go only to the logger, so reporting cannot loop', () => {
    const logger = makeLogger();
    const seams = createSeams({ logger });
    const onContainedError = vi.fn();
    seams.on(Seam.error, () => {
      throw new Error('listener of agent/error broke');
    });

    seams.notify(Seam.error, { agentId: 'a', error: { message: 'x' }, origin: 'test' }, { onContainedError });

    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(onContainedError).not.toHaveBeenCalled();
  });

  test('non-Error thrown values are reported readably', () => {
    const logger = makeLogger();
    const seams = createSeams({ logger });
    seams.on(
      Seam.status,
      () => {
        throw { reason: 'quota' };
      },
      { name: 'plain' },
    );

    seams.notify(Seam.status, { agentId: 'a', status: 'idle' });

    expect(logger.error.mock.calls[0]?.[0]).toMatchInlineSnapshot(
      `"Listener "plain" on seam "agent/status" failed: non-Error value \`{"reason":"quota"}\` (object)"`,
    );
  });

  test('a value thrown with a hostile toJSON is still reported', () => {
    const logger = makeLogger();
    const seams = createSeams({ logger });
    seams.on(
      Seam.status,
      () => {
        throw {
          toJSON() {
            throw new Error('no');
          },
        };
      },
      { name: 'weird' },
    );

    seams.notify(Seam.status, { agentId: 'a', status: 'idle' });

    expect(logger.error.mock.calls[0]?.[0]).toMatchInlineSnapshot(
      `"Listener "weird" on seam "agent/status" failed: non-Error value an object"`,
    );
  });

  test('the payload is deep-frozen for listeners, but the agent handle stays live', () => {
    const seams = createSeams();
    const agent = makeAgent('a');
    let payloadFrozen = false;
    let contentFrozen = false;
    seams.on(Seam.inboxEnqueue, (payload) => {
      payloadFrozen = Object.isFrozen(payload);
      contentFrozen = Object.isFrozen(payload.content) && Object.isFrozen(payload.content[0]);
    });
    let agentFrozen: boolean | undefined;
    seams.on(Seam.result, (payload) => {
      agentFrozen = Object.isFrozen(payload.exec.agent);
    });

    seams.notify(Seam.inboxEnqueue, {
      agentId: 'a',
      id: 'm1',
      content: [{ type: 'text', text: 'hi' }],
      source: { kind: 'user' },
      steering: false,
      wakeup: true,
    });
    const exec = Object.freeze({
      callId: 'c',
      name: 't',
      arguments: {},
      agent,
      token: Symbol('c'),
      signal: new AbortController().signal,
    });
    seams.notify(Seam.result, { exec, result: { isError: false, value: 1, content: [] } });

    expect(payloadFrozen).toBe(true);
    expect(contentFrozen).toBe(true);
    expect(agentFrozen).toBe(false);
    expect(Object.isFrozen(agent.log.events)).toBe(false);
  });

  test('notify filters agent-scoped listeners by the payload agent id', () => {
    const seams = createSeams();
    const seen: string[] = [];
    seams.on(Seam.status, (p) => void seen.push(`a-only:${p.agentId}`), { agent: 'a' });
    seams.on(Seam.status, (p) => void seen.push(`all:${p.agentId}`));

    seams.notify(Seam.status, { agentId: 'a', status: 'running' });
    seams.notify(Seam.status, { agentId: 'b', status: 'running' });

    expect(seen).toEqual(['a-only:a', 'all:a', 'all:b']);
  });

  test('awaitedNotify awaits listeners in order and contains every failure', async () => {
    const logger = makeLogger();
    const seams = createSeams({ logger });
    const order: string[] = [];
    seams.on(Seam.sessionStart, async () => {
      await flush();
      order.push('slow first');
    });
    seams.on(
      Seam.sessionStart,
      async () => {
        throw new Error('seed failed');
      },
      { name: 'seeder' },
    );
    seams.on(Seam.sessionStart, () => void order.push('second'));
    const onContainedError = vi.fn();

    await expect(
      seams
        .snapshot('a')
        .awaitedNotify(
          Seam.sessionStart,
          { agent: makeAgent('a'), source: 'startup', signal: new AbortController().signal },
          { agentId: 'a', onContainedError },
        ),
    ).resolves.toBeUndefined();

    expect(order).toEqual(['slow first', 'second']);
    expect(logger.error.mock.calls[0]?.[0]).toMatchInlineSnapshot(
      `"Listener "seeder" on seam "agent/session-start" failed: seed failed"`,
    );
    expect(onContainedError).toHaveBeenCalledTimes(1);
  });
});
