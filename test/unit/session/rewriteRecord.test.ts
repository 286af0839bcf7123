import { describe, expect, it } from 'vitest';
import { checkInvariants, formatViolation } from '../../../session/index.js';
import { am, found, logOf, se, ss, te, tr, ts, um } from './build.js';

// One tool turn whose `tool/call` (seq 4) carries the given rewrite fields.
const turnWithCall = (fields: Record<string, unknown>) =>
  logOf(
    ts(1),
    um(),
    ss(1, 1),
    am(1, 1, ['c1']),
    {
      type: 'tool/call',
      data: { turn: 1, step: 1, callId: 'c1', name: 'echo', arguments: '{"id":"c2"}', ...fields },
    },
    tr(1, 1, 'c1'),
    se(1, 1),
    te(1),
  );

describe('13 rewrite-record', () => {
  it('accepts a tool/call with neither original nor rewrites, and one with both', () => {
    expect(found(turnWithCall({}))).toEqual([]);
    expect(
      found(turnWithCall({ original: '{"id":"c1"}', rewrites: [{ by: 'a', reason: 'why' }, { by: 'b' }] })),
    ).toEqual([]);
  });

  it('reports original without rewrites, and rewrites without original', () => {
    expect(found(turnWithCall({ original: '{"id":"c1"}' }))).toEqual([
      ['13 rewrite-record', 4, 'PARTIAL_REWRITE_RECORD'],
    ]);
    const violations = checkInvariants(turnWithCall({ rewrites: [{ by: 'a' }] }));
    expect(violations.map(formatViolation)).toMatchInlineSnapshot(`
      [
        "invariant 13 rewrite-record violated at seq 4: tool/call c1 has rewrites without original [PARTIAL_REWRITE_RECORD]",
      ]
    `);
  });

  it('reports an empty rewrites list', () => {
    expect(found(turnWithCall({ original: '{"id":"c1"}', rewrites: [] }))).toEqual([
      ['13 rewrite-record', 4, 'EMPTY_REWRITES'],
    ]);
  });

  it('reports a rewrite entry without its author as event data that does not match', () => {
    expect(found(turnWithCall({ original: '{}', rewrites: [{ reason: 'anonymous' }] }))).toContainEqual([
      '0 event-data',
      4,
      'INVALID_EVENT_DATA',
    ]);
  });
});
