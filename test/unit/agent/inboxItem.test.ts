import { describe, expect, it } from 'vitest';
import { createInboxItem } from '../../../machines/runtime/inbox.js';

/** Whether every object and array inside `value` is frozen. */
function deeplyFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  return Object.isFrozen(value) && Object.values(value).every(deeplyFrozen);
}

describe('createInboxItem', () => {
  it('a plain string without options makes the same frozen item as the checked path', () => {
    const quick = createInboxItem('m1', 'hello', undefined, 'followup', true);
    const checked = createInboxItem('m1', 'hello', {}, 'followup', true);
    expect(quick).toEqual({
      id: 'm1',
      content: [{ type: 'text', text: 'hello' }],
      source: { kind: 'user' },
      contexts: [],
      wakeup: true,
    });
    expect(quick).toEqual(checked);
    expect(Object.keys(quick)).toEqual(Object.keys(checked));
    expect(deeplyFrozen(quick)).toBe(true);
    expect(deeplyFrozen(checked)).toBe(true);
    expect(createInboxItem('q1', 'later', undefined, 'queue', false).wakeup).toBe(false);
  });

  it('anything else is still checked: bad content and bad options are refused by name', () => {
    expect(() => createInboxItem('m1', 42, undefined, 'followup', true)).toThrow(
      /agent\.followup\(\): expected a string or ContentBlock\[\] content/,
    );
    expect(() => createInboxItem('m1', 'hi', { sauce: 1 }, 'steer', true)).toThrow(/agent\.steer\(\)/);
  });
});
