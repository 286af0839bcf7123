import { z } from 'zod';
import type { LogEvent } from '../../seams/types.js';
import { SessionLoadError } from '../errors.js';
import { resolveEventType } from '../eventSchema.js';
import { StoredEventSchema } from '../events.js';
import { toFrozenJson } from '../freeze.js';
import { repairEvents } from '../repair.js';

/** The first line of a session file. */
export const JsonlHeaderSchema = z.object({
  seamchart: z.literal(1),
  sessionId: z.string().min(1),
  created: z.string(),
  cwd: z.string(),
});
export type JsonlHeader = z.infer<typeof JsonlHeaderSchema>;

/** A session file's content after load and crash repair. */
export interface LoadedSession {
  readonly header: JsonlHeader;
  /** Loaded events followed by the synthetic repair events. */
  readonly events: readonly LogEvent[];
  readonly repairs: readonly string[];
  /** The full repaired file text, or `undefined` when the file needs no change. */
  readonly repairedText: string | undefined;
}

/**
 * Parses a session file's text and repairs a crash in memory (the file itself is not touched here).
 * @param text the file content
 * @param path the file, for error messages
 * @param now clock of the synthetic events
 */
export function loadSessionText(
  text: string,
  path: string,
  now: () => Date = () => new Date(),
): LoadedSession {
  const lines = text.split('\n');
  const terminated = text.endsWith('\n');
  if (terminated) lines.pop();
  if (text.length === 0) {
    throw new SessionLoadError(
      'EMPTY_FILE',
      path,
      undefined,
      `Session file ${path} is empty; start it with createJsonlStore`,
    );
  }
  const header = parseHeader(lines[0] ?? '', path);
  const events: LogEvent[] = [];
  const repairs: string[] = [];
  let tornAt: number | undefined;
  for (let index = 1; index < lines.length; index++) {
    const parsed = parseEventLine(lines[index] ?? '', events.length);
    if (typeof parsed !== 'string') {
      events.push(parsed);
      continue;
    }
    // Only the last line can be the victim of a crash mid-write; anything earlier is corruption.
    if (index !== lines.length - 1) {
      throw new SessionLoadError(
        'MALFORMED_LINE',
        path,
        index + 1,
        `Session file ${path}, line ${index + 1}: ${parsed}; the file was not modified`,
      );
    }
    tornAt = index;
    repairs.push(`line ${index + 1}: dropped a torn last line (${parsed})`);
  }
  const missingNewline = tornAt === undefined && !terminated;
  if (missingNewline) repairs.push(`line ${lines.length}: added the missing final newline`);

  const repaired = repairEvents(events);
  const time = now().toISOString();
  const synthetic = repaired.events.map((draft, offset) =>
    freezeEvent({ seq: events.length + offset, type: draft.type, data: draft.data, time }),
  );
  repairs.push(...repaired.repairs);
  if (repairs.length === 0) return { header, events, repairs, repairedText: undefined };

  const kept = lines.slice(0, tornAt ?? lines.length);
  const repairedText = [...kept, ...synthetic.map((event) => JSON.stringify(event))]
    .map((line) => `${line}\n`)
    .join('');
  return { header, events: [...events, ...synthetic], repairs, repairedText };
}

function parseHeader(line: string, path: string): JsonlHeader {
  const raw = parseJson(line);
  const parsed = JsonlHeaderSchema.safeParse(raw.ok ? raw.value : undefined);
  if (!parsed.success) {
    throw new SessionLoadError(
      'MALFORMED_HEADER',
      path,
      1,
      `Session file ${path}, line 1: expected a header {"seamchart":1,"sessionId","created","cwd"}, got ${preview(line)}`,
    );
  }
  return parsed.data;
}

// Returns the event, or why the line is not a valid event.
function parseEventLine(line: string, expectedSeq: number): LogEvent | string {
  const raw = parseJson(line);
  if (!raw.ok) return `not JSON (${preview(line)})`;
  const stored = StoredEventSchema.safeParse(raw.value);
  if (!stored.success) return `not an event {seq, type, data, time}: ${z.prettifyError(stored.error)}`;
  const { seq, type, time } = stored.data;
  if (seq !== expectedSeq) return `expected seq ${expectedSeq}, got ${seq}`;
  const resolved = resolveEventType(type);
  // A type nobody registered loads as an opaque log-only event.
  if (resolved.kind === 'unknown') return freezeEvent({ seq, type, data: stored.data.data, time });
  const data = resolved.schema.safeParse(stored.data.data);
  if (!data.success) return `invalid data for \`${type}\`: ${z.prettifyError(data.error)}`;
  try {
    return freezeEvent({ seq, type, data: data.data, time });
  } catch (error) {
    return `invalid data for \`${type}\`: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function freezeEvent(event: LogEvent): LogEvent {
  return toFrozenJson(event, 'event') as unknown as LogEvent;
}

function parseJson(line: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(line) };
  } catch {
    return { ok: false };
  }
}

function preview(line: string): string {
  return line.length > 60 ? `${JSON.stringify(line.slice(0, 60))}…` : JSON.stringify(line);
}
