import type { Violation } from '../types.js';
import { Invariant, violation } from './names.js';
import type { CheckedLog } from './segment.js';
import { isSuspendedTurn } from './suspendedTurn.js';

interface AcceptedItem {
  readonly seq: number;
  readonly wakeup: boolean;
  /** How and where the item ended (a recorded claim, a drain or a discard). */
  ended: string | undefined;
}

/**
 * 12 — every `inbox/accepted` id is claimed (a `turn/start` that records its prompt), drained (a
 * `steering/message`) or discarded (`inbox/discarded`) at most once. A claim by a
 * turn that recorded neither `user/message` nor `prompt/blocked` does not end the item (resume re-queues it).
 * With `atRest`, every waking item has ended exactly once.
 */
export function checkInboxLog({ entries, turns }: CheckedLog, atRest: boolean): Violation[] {
  const violations: Violation[] = [];
  const report = (code: string, seq: number | undefined, message: string) =>
    violations.push(violation(Invariant.inboxLog, code, seq, message));
  const recordedClaims = new Set(
    turns
      .filter((turn) =>
        turn.entries.some((entry) => entry.type === 'user/message' || entry.type === 'prompt/blocked'),
      )
      .map((turn) => turn.start.seq),
  );
  const items = new Map<string, AcceptedItem>();
  const end = (id: string, seq: number, how: string, ends: boolean): void => {
    const item = items.get(id);
    // Ids no inbox/accepted names (a turn driven without an agent's inbox) are not the ledger's.
    if (item === undefined) return;
    if (item.ended !== undefined) {
      report('ENDED_TWICE', seq, `${how} of ${id}, which already ended (${item.ended})`);
      return;
    }
    if (ends) item.ended = `${how} at seq ${seq}`;
  };
  for (const entry of entries) {
    if (entry.type === 'inbox/accepted') {
      const { id, wakeup } = entry.data;
      if (items.has(id)) report('ACCEPTED_TWICE', entry.seq, `inbox/accepted ${id} was accepted before`);
      else items.set(id, { seq: entry.seq, wakeup, ended: undefined });
    } else if (entry.type === 'inbox/discarded') {
      for (const id of entry.data.ids) end(id, entry.seq, 'discard', true);
    } else if (entry.type === 'turn/start' && entry.data.trigger.itemId !== undefined) {
      end(entry.data.trigger.itemId, entry.seq, 'claim', recordedClaims.has(entry.seq));
    } else if (entry.type === 'steering/message' && entry.data.itemId !== undefined) {
      end(entry.data.itemId, entry.seq, 'drain', true);
    }
  }
  // Items queued behind a suspended turn (or owed to its next step) wait for it: at rest all the same.
  if (atRest && !isSuspendedTurn(turns.at(-1))) {
    for (const [id, item] of items) {
      if (item.wakeup && item.ended === undefined)
        report('NEVER_ENDED', item.seq, `${id} was accepted but never claimed, drained or discarded`);
    }
  }
  return violations;
}
