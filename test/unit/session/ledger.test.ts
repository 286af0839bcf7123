import { describe, expect, it } from 'vitest';
import { checkLedger, formatViolation, type LedgerNotification } from '../../../session/index.js';

const enqueue = (id: string, agentId = 'a'): LedgerNotification => ({
  seam: 'agent/inbox/enqueue',
  payload: { agentId, id, content: [], source: { kind: 'user' }, steering: false, wakeup: true },
});
const dequeue = (id: string, agentId = 'a'): LedgerNotification => ({
  seam: 'agent/inbox/dequeue',
  payload: { agentId, id, steering: false },
});
const discard = (ids: string[], agentId = 'a'): LedgerNotification => ({
  seam: 'agent/inbox/discard',
  payload: { agentId, items: ids.map((id) => ({ id, steering: true })) },
});
const found = (notifications: LedgerNotification[], options?: Parameters<typeof checkLedger>[1]) =>
  checkLedger(notifications, options).map((v) => [v.invariant, v.seq, v.code]);

describe('checkLedger (10 inbox-ledger)', () => {
  it('accepts every enqueued id ending in one dequeue or one discard, ignoring other seams', () => {
    const notifications = [
      enqueue('m1'),
      { seam: 'agent/status', payload: { agentId: 'a', status: 'running' } },
      enqueue('m2'),
      enqueue('s1'),
      dequeue('m1'),
      discard(['m2', 's1']),
    ];
    expect(found(notifications)).toEqual([]);
  });

  it('accepts the `{ type, payload }` shape too', () => {
    expect(
      found([
        { type: 'agent/inbox/enqueue', payload: { id: 'm1' } },
        { type: 'agent/inbox/dequeue', payload: { id: 'm1' } },
      ]),
    ).toEqual([]);
  });

  it('reports an id that ends twice, at the second end', () => {
    expect(found([enqueue('m1'), dequeue('m1'), discard(['m1'])])).toEqual([
      ['10 inbox-ledger', 2, 'ENDED_TWICE'],
    ]);
  });

  it('reports a dequeue that would make the outstanding count negative', () => {
    const violations = checkLedger([dequeue('ghost')]);
    expect(violations.map(formatViolation)).toMatchInlineSnapshot(`
      [
        "invariant 10 inbox-ledger violated at seq 0: dequeue of ghost, which was never enqueued (the outstanding count goes negative) [NOT_OUTSTANDING]",
      ]
    `);
  });

  it('reports an id never dequeued nor discarded, unless outstanding ids are allowed', () => {
    expect(found([enqueue('m1'), enqueue('m2'), dequeue('m2')])).toEqual([
      ['10 inbox-ledger', 0, 'NEVER_ENDED'],
    ]);
    expect(found([enqueue('m1')], { allowOutstanding: true })).toEqual([]);
  });

  it('reports an empty discard', () => {
    expect(found([discard([])])).toEqual([['10 inbox-ledger', 0, 'EMPTY_DISCARD']]);
  });

  it('pairs ids per agent', () => {
    expect(found([enqueue('m1', 'a'), enqueue('m1', 'b'), dequeue('m1', 'a')])).toEqual([
      ['10 inbox-ledger', 1, 'NEVER_ENDED'],
    ]);
  });
});
