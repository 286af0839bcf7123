import { getHeapStatistics } from 'node:v8';
import { z } from 'zod';
import type { LogEvent } from '../../kernel/index.js';
import { describeThrown, StoredEventSchema } from '../../kernel/index.js';
import { SessionLoadError, type SessionLoadErrorCode } from '../errors.js';
import { resolveEventType } from '../eventSchema.js';
import { freezeParsedJson, toFrozenJson } from '../freeze.js';
import { DEFAULT_MAX_LINE_BYTES } from '../limits.js';
import { repairEvents } from '../repair.js';
import { errnoCode, type FileIo, nodeFileIo } from './fileIo.js';

/** The first line of a session file. */
export const JsonlHeaderSchema = z.object({
  seamchart: z.literal(1),
  sessionId: z.string().min(1),
  created: z.string(),
  cwd: z.string(),
  tools: z.string().optional(),
});
export type JsonlHeader = z.infer<typeof JsonlHeaderSchema>;

/** How much of a session file one read takes. */
export const READ_CHUNK_BYTES = 64 * 1024;

export interface ReadSessionOptions {
  maxLineBytes?: number;
  /** The file operations (tests wrap them). */
  io?: FileIo;
}

/** A final line without its newline: torn by a crash, or still being written by a live writer. */
export interface UnterminatedTail {
  /** 1-based line number (the header is line 1). */
  readonly line: number;
  readonly bytes: number;
  /** The event, when the bytes already form a valid one (only its newline is missing). */
  readonly event: LogEvent | undefined;
  /** Why it is not a valid event, when it is not. */
  readonly problem: string | undefined;
}

/** A session file as read, before any repair. */
export interface ReadSession {
  readonly header: JsonlHeader;
  /** The events of the complete (newline-terminated) lines. */
  readonly events: readonly LogEvent[];
  /** Bytes up to and including the last newline: what a repair keeps untouched. */
  readonly completeBytes: number;
  readonly tail: UnterminatedTail | undefined;
  /** The file is a header line without its newline. */
  readonly headerUnterminated: boolean;
  /** The file's mode bits, as read. */
  readonly mode: number;
}

/**
 * Reads a session file line by line in bounded chunks (memory grows with the events, never with the file as one
 * string). A complete line that is not a valid event stops the load with an error naming it; only a final line
 * without a newline is returned as an unterminated tail.
 * @param path the session file
 * @param options line limit and file operations
 */
export async function readSessionFile(path: string, options: ReadSessionOptions = {}): Promise<ReadSession> {
  const io = options.io ?? nodeFileIo;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const fd = openForRead(io, path);
  try {
    const stats = io.fstatSync(fd);
    if (stats.isDirectory()) {
      throw new SessionLoadError('READ_FAILED', path, undefined, `Session path ${path} is a directory`);
    }
    refuseOversizedSession(path, stats.size, 0);
    const reader = new LineReader(path, maxLineBytes);
    const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    let position = 0;
    for (;;) {
      let bytesRead: number;
      try {
        bytesRead = await io.read(fd, buffer, position);
      } catch (error) {
        throw loadFailure(path, error, 'read');
      }
      if (bytesRead === 0) break;
      reader.push(buffer.subarray(0, bytesRead));
      position += bytesRead;
      // The estimate may be low for a file of many small events: the heap itself is watched as it grows.
      if (position % MEMORY_CHECK_BYTES < READ_CHUNK_BYTES)
        refuseOversizedSession(path, stats.size, position);
    }
    return { ...reader.finish(), mode: stats.mode & 0o7777 };
  } finally {
    io.closeSync(fd);
  }
}

/** Loaded events take about this many times their bytes on the heap (objects, strings, frozen copies). */
const HEAP_BYTES_PER_FILE_BYTE = 4;
/** The heap is checked again after every this many bytes read. */
const MEMORY_CHECK_BYTES = 16 * 1024 * 1024;
/** Loading stops when the heap reaches this share of its limit (the rest is for the run itself). */
const HEAP_SHARE = 0.8;

/**
 * Refuses a session that would not fit in this process's heap with a clear `SessionLoadError` (`TOO_LARGE`),
 * before an out-of-memory crash: up front from the file's size, and while reading from the heap in use.
 */
function refuseOversizedSession(path: string, size: number, read: number): void {
  const { heap_size_limit: limit, used_heap_size: used } = getHeapStatistics();
  const needed = read === 0 ? size * HEAP_BYTES_PER_FILE_BYTE : 0;
  if (used + needed <= limit * HEAP_SHARE) return;
  const mb = (bytes: number): string => `${Math.ceil(bytes / (1024 * 1024))} MB`;
  const want = Math.ceil((size * HEAP_BYTES_PER_FILE_BYTE) / HEAP_SHARE / (1024 * 1024) / 1024) * 1024 + 1024;
  throw new SessionLoadError(
    'TOO_LARGE',
    path,
    undefined,
    `Session file ${path} is ${mb(size)}; loading its events needs about ${mb(size * HEAP_BYTES_PER_FILE_BYTE)} of memory, ` +
      `more than this process's heap allows (${mb(limit)}, ${mb(used)} in use${read > 0 ? ` after reading ${mb(read)}` : ''}). ` +
      `Give node a larger heap (NODE_OPTIONS=--max-old-space-size=${want}), or start a new session and read this one with seamchart log`,
  );
}

function openForRead(io: FileIo, path: string): number {
  try {
    return io.openSync(path, 'r');
  } catch (error) {
    throw loadFailure(path, error, 'open');
  }
}

/** Turns an I/O failure while loading into a `SessionLoadError` with a code (never a raw errno error). */
export function loadFailure(path: string, error: unknown, what: string): SessionLoadError {
  const errno = errnoCode(error);
  const code: SessionLoadErrorCode =
    errno === 'ENOENT'
      ? 'NOT_FOUND'
      : errno === 'EACCES' || errno === 'EPERM'
        ? 'PERMISSION_DENIED'
        : errno === 'EROFS'
          ? 'READ_ONLY'
          : 'READ_FAILED';
  const why =
    code === 'NOT_FOUND'
      ? 'it does not exist'
      : code === 'PERMISSION_DENIED'
        ? 'permission denied'
        : (errno ?? describeThrown(error));
  return new SessionLoadError(code, path, undefined, `Cannot ${what} session file ${path}: ${why}`, {
    cause: error,
  });
}

// Splits bytes into lines and parses each as it completes; keeps only the current partial line.
class LineReader {
  private header: JsonlHeader | undefined;
  private readonly events: LogEvent[] = [];
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private line = 1;
  private completeBytes = 0;

  constructor(
    private readonly path: string,
    private readonly maxLineBytes: number,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline < 0 ? chunk.length : newline;
      this.grow(end - start);
      if (newline < 0) {
        if (end > start) this.pending.push(Buffer.from(chunk.subarray(start, end)));
        return;
      }
      this.completeBytes += this.pendingBytes + 1;
      const text = this.take(chunk.subarray(start, end));
      this.completeLine(text);
      start = newline + 1;
    }
  }

  finish(): Omit<ReadSession, 'mode'> {
    const tailBytes = this.pendingBytes;
    const text = this.take(Buffer.alloc(0));
    if (this.header === undefined) {
      if (tailBytes === 0) {
        throw new SessionLoadError(
          'EMPTY_FILE',
          this.path,
          undefined,
          `Session file ${this.path} is empty; start it with createJsonlStore`,
        );
      }
      // Only a header, without its newline: kept, and the newline is added by a repair.
      this.header = parseHeader(text, this.path);
      return {
        header: this.header,
        events: this.events,
        completeBytes: tailBytes,
        tail: undefined,
        headerUnterminated: true,
      };
    }
    let tail: UnterminatedTail | undefined;
    if (tailBytes > 0) {
      const parsed = parseEventLine(text, this.events.length);
      tail =
        typeof parsed === 'string'
          ? { line: this.line, bytes: tailBytes, event: undefined, problem: parsed }
          : { line: this.line, bytes: tailBytes, event: parsed, problem: undefined };
    }
    return {
      header: this.header,
      events: this.events,
      completeBytes: this.completeBytes,
      tail,
      headerUnterminated: false,
    };
  }

  private grow(bytes: number): void {
    this.pendingBytes += bytes;
    if (this.pendingBytes <= this.maxLineBytes) return;
    throw new SessionLoadError(
      'LINE_TOO_LONG',
      this.path,
      this.line,
      `Session file ${this.path}, line ${this.line}: longer than maxLineBytes (${this.maxLineBytes} bytes); ` +
        'the file was not modified (raise maxLineBytes to load it)',
    );
  }

  private take(last: Buffer): string {
    const parts = this.pending.length === 0 ? [last] : [...this.pending, last];
    this.pending = [];
    this.pendingBytes = 0;
    return parts.length === 1 ? (parts[0] as Buffer).toString('utf8') : Buffer.concat(parts).toString('utf8');
  }

  private completeLine(text: string): void {
    const line = this.line++;
    if (this.header === undefined) {
      this.header = parseHeader(text, this.path);
      return;
    }
    const parsed = parseEventLine(text, this.events.length);
    if (typeof parsed !== 'string') {
      this.events.push(parsed);
      return;
    }
    // A complete line was written whole: failing to parse it is corruption, never a torn write.
    throw new SessionLoadError(
      'MALFORMED_LINE',
      this.path,
      line,
      `Session file ${this.path}, line ${line}: ${parsed}; the file was not modified`,
    );
  }
}

/** What a repair of a loaded session would do, computed in memory. */
export interface RepairPlan {
  /** Loaded events followed by the synthetic repair events. */
  readonly events: readonly LogEvent[];
  readonly repairs: readonly string[];
  /** Bytes of the file kept as they are. */
  readonly keepBytes: number;
  /** Text appended after the kept bytes, or `undefined` when the file needs no change. */
  readonly append: string | undefined;
}

/**
 * Plans the crash repair of a read session: a torn unterminated tail is dropped, a valid one gets its newline,
 * and whatever the log left open is closed `interrupted`. Lines before the tail are kept byte for byte.
 * @param read the session as read
 * @param now clock of the synthetic events
 */
export function planRepair(read: ReadSession, now: () => Date = () => new Date()): RepairPlan {
  const repairs: string[] = [];
  const events = [...read.events];
  let keepBytes = read.completeBytes;
  let append = '';
  const { tail } = read;
  if (read.headerUnterminated) {
    append = '\n';
    repairs.push('line 1: added the missing final newline');
  } else if (tail?.event !== undefined) {
    events.push(tail.event);
    keepBytes += tail.bytes;
    append = '\n';
    repairs.push(`line ${tail.line}: added the missing final newline`);
  } else if (tail !== undefined) {
    repairs.push(`line ${tail.line}: dropped a torn last line (${tail.problem})`);
  }
  const repaired = repairEvents(events);
  const time = now().toISOString();
  const synthetic = repaired.events.map((draft, offset) =>
    freezeEvent({ seq: events.length + offset, type: draft.type, data: draft.data, time }),
  );
  repairs.push(...repaired.repairs);
  append += synthetic.map((event) => `${JSON.stringify(event)}\n`).join('');
  return {
    events: [...events, ...synthetic],
    repairs,
    keepBytes,
    append: repairs.length === 0 ? undefined : append,
  };
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
export function parseEventLine(line: string, expectedSeq: number): LogEvent | string {
  const raw = parseJson(line);
  if (!raw.ok) return `not JSON (${preview(line)})`;
  // The common case checked by hand (this runs once per line of a large file); zod explains the rest.
  const value = raw.value as Partial<Record<'seq' | 'type' | 'data' | 'time', unknown>> | null;
  const shaped =
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Number.isInteger(value.seq) &&
    (value.seq as number) >= 0 &&
    typeof value.type === 'string' &&
    value.type.length > 0 &&
    typeof value.time === 'string' &&
    'data' in value;
  if (!shaped) {
    const stored = StoredEventSchema.safeParse(raw.value);
    return stored.success
      ? 'not an event {seq, type, data, time}'
      : `not an event {seq, type, data, time}: ${z.prettifyError(stored.error)}`;
  }
  const seq = value.seq as number;
  const type = value.type as string;
  const time = value.time as string;
  if (seq !== expectedSeq) return `expected seq ${expectedSeq}, got ${seq}`;
  const resolved = resolveEventType(type);
  // A type nobody registered loads as an opaque log-only event (JSON.parse made it plain JSON).
  if (resolved.kind === 'unknown') return freezeParsedJson({ seq, type, data: value.data, time }) as LogEvent;
  const data = resolved.schema.safeParse(value.data);
  if (!data.success) return `invalid data for \`${type}\`: ${z.prettifyError(data.error)}`;
  return freezeParsedJson({ seq, type, data: data.data, time }) as LogEvent;
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
