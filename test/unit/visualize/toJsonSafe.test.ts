import { describe, expect, it } from 'vitest';
import { toJsonSafe } from '../../../visualize/index.js';

describe('toJsonSafe', () => {
  it('keeps plain data and turns the rest into data that round-trips through JSON', () => {
    const shared = { x: 1 };
    const cyclic: Record<string, unknown> = {
      shared,
      again: shared,
      fn: () => 1,
      list: [1, () => 2, undefined],
    };
    cyclic.self = cyclic;
    const error = Object.assign(new TypeError('bad'), { code: 'E_BAD' });
    const copied = toJsonSafe({
      cyclic,
      error,
      map: new Map([['a', 1]]),
      set: new Set([1, 2]),
      big: 10n,
      nan: Number.NaN,
      date: new Date(0),
    });
    expect(copied).toEqual({
      cyclic: { shared: { x: 1 }, again: { x: 1 }, list: [1], self: '[Circular]' },
      error: { name: 'TypeError', message: 'bad', code: 'E_BAD' },
      map: { a: 1 },
      set: [1, 2],
      big: '10',
      nan: null,
      date: '1970-01-01T00:00:00.000Z',
    });
    expect(JSON.parse(JSON.stringify(copied))).toEqual(copied);
  });

  it('stops at a depth limit instead of overflowing', () => {
    let deep: Record<string, unknown> = {};
    const top = deep;
    for (let i = 0; i < 200; i++) deep = deep.next = {};
    expect(JSON.stringify(toJsonSafe(top))).toContain('"[MaxDepth]"');
  });
});
