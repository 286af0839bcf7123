import type { LogEvent } from '../../kernel/index.js';
import { type CoreEventData, type CoreEventType, coreEventSchemas } from '../../kernel/index.js';
import { isCoreEventType } from '../eventSchema.js';
import type { Violation } from '../types.js';
import { Invariant, violation } from './names.js';

/** A core event with typed data, as the predicates read it. */
export type CoreEntry = {
  [TType in CoreEventType]: {
    readonly type: TType;
    readonly seq: number;
    readonly data: CoreEventData<TType>;
  };
}[CoreEventType];
export type EntryOf<TType extends CoreEventType> = Extract<CoreEntry, { type: TType }>;
/** Any other event: log-only, only its position matters. */
export interface PluginEntry {
  readonly type: 'plugin';
  readonly seq: number;
  readonly rawType: string;
}
export type Entry = CoreEntry | PluginEntry;

/** Reads events once into typed entries; a core event with invalid data becomes a violation and a plugin entry. */
export function readEntries(events: readonly LogEvent[]): { entries: Entry[]; violations: Violation[] } {
  const entries: Entry[] = [];
  const violations: Violation[] = [];
  for (const event of events) {
    if (!isCoreEventType(event.type)) {
      entries.push({ type: 'plugin', seq: event.seq, rawType: event.type });
      continue;
    }
    const parsed = coreEventSchemas[event.type].safeParse(event.data);
    if (parsed.success) {
      entries.push({ type: event.type, seq: event.seq, data: parsed.data } as CoreEntry);
    } else {
      violations.push(
        violation(
          Invariant.eventData,
          'INVALID_EVENT_DATA',
          event.seq,
          `${event.type} data does not match its schema`,
        ),
      );
      entries.push({ type: 'plugin', seq: event.seq, rawType: event.type });
    }
  }
  return { entries, violations };
}

/** Whether an entry is a model-visible message of the user side (prompts, contexts, steering). */
export function isUserSide(
  entry: Entry,
): entry is EntryOf<'user/message' | 'context/message' | 'steering/message'> {
  return (
    entry.type === 'user/message' || entry.type === 'context/message' || entry.type === 'steering/message'
  );
}

/** The name of an entry's event type, for messages. */
export function typeName(entry: Entry): string {
  return entry.type === 'plugin' ? entry.rawType : entry.type;
}
