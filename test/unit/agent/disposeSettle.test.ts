import { describe, expect, it, vi } from 'vitest';
import { memoryStore } from '../../../session/index.js';
import type { SessionStore } from '../../../session/types.js';
import { createTestAgent } from './helpers.js';

/** A memory store whose flushes wait until the test releases (or fails) them, in order. */
function heldFlushStore(): {
  store: SessionStore;
  flushes: Array<{ resolve: () => void; reject: (error: Error) => void }>;
} {
  const flushes: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  const store: SessionStore = {
    ...memoryStore(),
    flush: () => new Promise<void>((resolve, reject) => flushes.push({ resolve, reject })),
  };
  return { store, flushes };
}

const ticks = async (count = 5) => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};

describe('dispose settles the log without an actor of its own', () => {
  it('dispose() resolves only after the injection turns’ flushes and the last log flush settled', async () => {
    const { store, flushes } = heldFlushStore();
    const { agent, expectInvariants } = createTestAgent({ script: [], agent: { store } });
    agent.inject('context for later');
    let disposed = false;
    const disposal = agent.dispose().then(() => {
      disposed = true;
    });
    await ticks();
    // The injection turn's flush is still running: disposal waits for it before its own flush.
    expect(flushes).toHaveLength(1);
    expect(disposed).toBe(false);
    expect(agent.status).toBe('disposed');
    expect(agent.actor.getSnapshot().value).toBe('disposing');
    flushes[0]!.resolve();
    await ticks();
    expect(flushes).toHaveLength(2);
    expect(disposed).toBe(false);
    flushes[1]!.resolve();
    await disposal;
    expect(agent.actor.getSnapshot().value).toBe('disposed');
    expect(agent.actor.getSnapshot().status).toBe('done');
    expectInvariants();
  });

  it('a last flush that fails still ends the agent disposed, and dispose() resolves', async () => {
    const { store, flushes } = heldFlushStore();
    const { agent, logger, expectInvariants } = createTestAgent({ script: [], agent: { store } });
    const disposal = agent.dispose();
    await ticks();
    expect(flushes).toHaveLength(1);
    flushes[0]!.reject(new Error('fsync failed'));
    await disposal;
    expect(agent.actor.getSnapshot().value).toBe('disposed');
    expect(agent.actor.getSnapshot().status).toBe('done');
    // As before: the disposal's own flush failure is not reported (nothing is left to report it to).
    expect(logger.lines).toEqual([]);
    expectInvariants();
  });

  it('an agent stopped while disposing drops the late flush answer (no warning, no error)', async () => {
    const { store, flushes } = heldFlushStore();
    const { agent, logger } = createTestAgent({ script: [], agent: { store } });
    // XState warns on the console about an event sent to a stopped actor.
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      void agent.dispose();
      await ticks();
      expect(flushes).toHaveLength(1);
      agent.actor.stop();
      flushes[0]!.resolve();
      await ticks();
      expect(agent.actor.getSnapshot().status).toBe('stopped');
      expect(warn).not.toHaveBeenCalled();
      expect(logger.lines).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });
});
