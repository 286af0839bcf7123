import type { Violation } from '../types.js';
import { Invariant, violation } from './names.js';
import type { CheckedLog, TurnSegment } from './segment.js';
import { isSuspendedTurn } from './suspendedTurn.js';

interface AcceptedItem {
  readonly seq: number;
  readonly wakeup: boolean;
  /** How and where the item ended (a recorded claim, a drain or a discard). */
  ended: string | undefined;
}

/**
 * 12 — every `inbox/accepted` id is claimed (a `turn/start`), drained (a `steering/message`) or discarded
 * (`inbox/discarded`) at most once. A claim by a turn that recorded neither `user/message` nor
 * `prompt/blocked` and never ended, or ended `disposed` or `interrupted` (crash repair), does not end the
 * item: resume re-queues it (storage.md, "On resume"). With `atRest`, every waking item has ended exactly once.
 */
export function checkInboxLog({ entries, turns }: CheckedLog, atRest: boolean): Violation[] {
  const violations: Violation[] = [];
  const report = (code: string, seq: number | undefined, message: string) =>
    violations.push(violation(Invariant.inboxLog, code, seq, message));
  const discards = new Map<string, number[]>();
  for (const entry of entries) {
    if (entry.type !== 'inbox/discarded') continue;
    for (const id of entry.data.ids) discards.set(id, [...(discards.get(id) ?? []), entry.seq]);
  }
  const recordedClaims = new Set(
    turns.filter((turn) => endsItsClaim(turn, discards)).map((turn) => turn.start.seq),
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

/**
 * Whether a turn's claim ends its item: its prompt was recorded, or the turn ended for good (not disposed or
 * repaired) without discarding the item itself (a cancel before the prompt was recorded discards it).
 */
function endsItsClaim(turn: TurnSegment, discards: ReadonlyMap<string, readonly number[]>): boolean {
  if (turn.entries.some((entry) => entry.type === 'user/message' || entry.type === 'prompt/blocked'))
    return true;
  const id = turn.start.data.trigger.itemId;
  const end = turn.end?.seq ?? Number.POSITIVE_INFINITY;
  const discarded = (id === undefined ? [] : (discards.get(id) ?? [])).some(
    (seq) => seq > turn.start.seq && seq < end,
  );
  const kind = turn.end?.data.reason.kind;
  return !discarded && kind !== undefined && kind !== 'disposed' && kind !== 'interrupted';
}
