import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../../session/index.js';
import { logOf, ts, um } from './build.js';

describe('memoryStore', () => {
  it('starts empty, without a session id or repairs, and flushes at once', async () => {
    const store = memoryStore();
    expect([store.sessionId, store.initialEvents, store.repairs]).toEqual([undefined, [], []]);
    await expect(store.flush()).resolves.toBeUndefined();
  });

  it('seeds frozen copies of the given events', () => {
    const events = logOf(ts(1), um());
    const store = memoryStore({ id: 'seeded', events });
    expect(store.initialEvents).toEqual(events);
    expect(store.initialEvents[1]).not.toBe(events[1]);
    expect(Object.isFrozen(store.initialEvents[1]?.data)).toBe(true);
    expect(store.sessionId).toBe('seeded');
  });
});
