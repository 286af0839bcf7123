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

describe('memoryStore seed events that are not plain JSON', () => {
  it('names the path of the first non-JSON value, through arrays and objects', () => {
    const seed = {
      seq: 0,
      type: 'user/message',
      time: 't',
      data: { content: [{ type: 'text', text: 'a' }, { when: new Date(0) }] },
    };
    expect(() => memoryStore({ events: [seed as never] })).toThrow(
      'Expected plain JSON at `event.data.content[1].when`, got an instance of Date',
    );
    const infinite = { ...seed, data: { turn: Number.POSITIVE_INFINITY } };
    expect(() => memoryStore({ events: [infinite as never] })).toThrow(
      'Expected plain JSON at `event.data.turn`, got `Infinity` (number)',
    );
  });
});
