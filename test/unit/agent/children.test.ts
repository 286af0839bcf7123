import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createToolRegistry } from '../../../machines/toolCall/createToolRegistry.js';
import { createSeams } from '../../../seams/index.js';
import { memoryStore } from '../../../session/index.js';
import { defineTool } from '../../../tools/index.js';
import { createTestAgent, deferred, oneStepTurn, reasons, type TestAgent } from './helpers.js';

let current: TestAgent | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await current?.agent.dispose();
  current = undefined;
});

const stoppedActorWarnings = (warn: { mock: { calls: unknown[][] } }): string[] =>
  warn.mock.calls.map((call) => String(call[0])).filter((line) => line.includes('stopped actor'));

describe('events for children are only sent to a live child', () => {
  it('a cancel that makes the batch finish at once sends no ABORT to the finished batch', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const tools = createToolRegistry();
    tools.register(
      defineTool({ name: 'work', description: 'w', parameters: z.object({}), execute: () => 'x' }),
    );
    const inside = deferred();
    current = createTestAgent({
      tools,
      script: [{ toolCalls: [{ id: 'c1', name: 'work', arguments: {} }] }, { text: 'never' }],
      // Cooperative: the abort settles the call, so the batch drains and finishes inside the cancel.
      register: (seams) =>
        seams.on('tools/pre-execute', (exec) => {
          inside.resolve();
          return new Promise((_, reject) =>
            exec.signal.addEventListener('abort', () => reject(new Error('stopped'))),
          );
        }),
    });
    current.agent.followup('go');
    await inside.promise;
    current.agent.cancel();
    await current.agent.whenIdle();
    expect(reasons(current.agent.log.events)).toEqual([{ kind: 'aborted' }]);
    expect(stoppedActorWarnings(warn)).toEqual([]);
    current.expectInvariants();
  });
});

/** Rejects if `promise` does not settle within `ms` (a hang would otherwise time the test out). */
function within<T>(promise: Promise<T>, ms = 500): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms)),
  ]);
}

describe('an agent whose root actor errors', () => {
  it('reports the error, and whenIdle()/dispose() settle instead of hanging; delivery then throws', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      // Claiming a message snapshots the listeners: a service that throws synchronously kills the actor.
      let explode = false;
      const real = createSeams({ logger: { error: () => {} } });
      const seams = new Proxy(real, {
        get: (target, key, receiver) =>
          key === 'snapshot' && explode
            ? () => {
                throw new Error('snapshot exploded');
              }
            : Reflect.get(target, key, receiver),
      });
      current = createTestAgent({ script: [{ text: 'never' }], seams });
      const { agent, logger } = current;
      explode = true;
      agent.followup('go');
      expect(agent.actor.getSnapshot().status).toBe('error');
      await within(agent.whenIdle());
      expect(logger.lines.some((line) => line.includes('stopped on an error'))).toBe(true);
      expect(current.notifications.of('agent/error').map((e) => e.origin)).toEqual(['agent']);
      expect(() => agent.followup('again')).toThrow(/stopped on an error/);
      await within(agent.dispose());
      await within(agent.dispose());
      // The message the crash stranded is never claimed nor discarded: it stays pending in the log.
      current.expectInvariants({ open: true, allowOutstanding: true });
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(unhandled).toEqual([]);
      expect(stoppedActorWarnings(warn)).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('dispose() settles when the root actor was stopped from outside', async () => {
    current = createTestAgent({ script: [{ text: 'a' }] });
    current.agent.actor.stop();
    await within(current.agent.whenIdle());
    await within(current.agent.dispose());
  });
});

describe('a turn whose turn/start was refused', () => {
  it('tells the agent it is closed before reporting, so a steer from an agent/error listener is queued, not lost', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    // Refused twice: a refused turn/start is written again once, so only a second refusal ends the turn.
    let refusals = 0;
    const store = {
      ...memoryStore(),
      write(event: { type: string }) {
        if (event.type === 'turn/start' && refusals < 2) {
          refusals++;
          throw new Error('disk full');
        }
      },
    };
    let steered = false;
    current = createTestAgent({
      script: [{ text: 'answer to the steer' }],
      agent: { store },
      register: (seams) =>
        seams.on('agent/error', () => {
          if (steered) return;
          steered = true;
          current?.agent.steer('after the refusal');
        }),
    });
    current.agent.followup('go');
    await current.agent.whenIdle();
    expect(steered).toBe(true);
    expect(stoppedActorWarnings(warn)).toEqual([]);
    // The refused turn wrote nothing; the steer became an ordinary message and ran as turn 1.
    expect(current.eventTypes()).toEqual(oneStepTurn);
    current.expectInvariants();
  });
});
