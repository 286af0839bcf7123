import type { Entry, EntryOf } from './entries.js';

/** The events between a `step/start` and its `step/end` (exclusive). */
export interface StepSegment {
  readonly start: EntryOf<'step/start'>;
  readonly end: EntryOf<'step/end'> | undefined;
  readonly entries: readonly Entry[];
}

/** The events between a `turn/start` and its `turn/end` (exclusive), with its steps. */
export interface TurnSegment {
  readonly start: EntryOf<'turn/start'>;
  readonly end: EntryOf<'turn/end'> | undefined;
  readonly entries: readonly Entry[];
  readonly steps: readonly StepSegment[];
}

interface OpenStep {
  start: EntryOf<'step/start'>;
  end: EntryOf<'step/end'> | undefined;
  entries: Entry[];
}
interface OpenTurn {
  start: EntryOf<'turn/start'>;
  end: EntryOf<'turn/end'> | undefined;
  entries: Entry[];
  steps: OpenStep[];
}

/**
 * Splits entries into turns and steps by position. Malformed nesting is tolerated (predicates 2–4 report
 * it): a `turn/start` inside a turn starts a new one, events outside any turn are left out.
 */
export function segmentTurns(entries: readonly Entry[]): TurnSegment[] {
  const turns: OpenTurn[] = [];
  let turn: OpenTurn | undefined;
  let step: OpenStep | undefined;
  for (const entry of entries) {
    // Durable-inbox events may stand anywhere and belong to no turn or step.
    if (entry.type === 'inbox/accepted' || entry.type === 'inbox/discarded') continue;
    if (entry.type === 'turn/start') {
      turn = { start: entry, end: undefined, entries: [], steps: [] };
      step = undefined;
      turns.push(turn);
      continue;
    }
    if (turn === undefined) continue;
    if (entry.type === 'turn/end') {
      turn.end = entry;
      turn = undefined;
      step = undefined;
      continue;
    }
    turn.entries.push(entry);
    if (entry.type === 'step/start') {
      step = { start: entry, end: undefined, entries: [] };
      turn.steps.push(step);
    } else if (entry.type === 'step/end') {
      if (step !== undefined) step.end = entry;
      step = undefined;
    } else if (step !== undefined) {
      step.entries.push(entry);
    }
  }
  return turns;
}

/** What every predicate reads: the typed entries and their turns. */
export interface CheckedLog {
  readonly entries: readonly Entry[];
  readonly turns: readonly TurnSegment[];
}
