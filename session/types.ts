import type { AgentLogView, CoreEventData, CoreEventType, JsonValue, LogEvent } from '../kernel/index.js';
import type { SessionStoreError } from './errors.js';

/**
 * The append-only session log (one per agent). Its methods are called on the log (`log.append(…)`), not
 * detached from it: they live on the class's prototype.
 */
export interface SessionLog extends AgentLogView {
  readonly events: readonly LogEvent[];
  /** Core event append used by the machines: validates `data` with the type's schema. */
  appendCore<TType extends CoreEventType>(
    type: TType,
    data: CoreEventData<TType>,
  ): LogEvent<TType, CoreEventData<TType>>;
  /** Plugin event append (type registered with `defineLogEvent`; core types are refused). */
  append(type: string, data: JsonValue): LogEvent;
  subscribe(listener: (event: LogEvent) => void): () => void;
  /**
   * Runs `run` once the listeners running now have returned (at once when none is): an append they
   * caused and the log refused as `REENTRANT_APPEND` is made from there.
   */
  afterListeners(run: () => void): void;
  /** Resolves after the store has made everything appended so far durable. */
  flush(): Promise<void>;
  /** Resolves once everything appended so far is committed (at once for synchronous stores); the write-ahead point. */
  barrier(): Promise<void>;
  /** Whether the store commits asynchronously (it has a `barrier`): only then is there anything to wait for. */
  readonly writesAsync: boolean;
  /** The longest line (bytes, without its newline) an event may take: the store's limit. */
  readonly maxLineBytes: number;
  /** Called once, when the store first fails (the agent then moves to its `failed` state). */
  onStoreFailure(listener: (error: SessionStoreError) => void): void;
  /**
   * The store's latched failure (a write or fsync that failed): once set, every append and flush is refused
   * with it, and the in-memory log still equals the file.
   */
  readonly storeFailure: SessionStoreError | undefined;
}

/** Where events go. `memoryStore()` keeps nothing extra; the JSONL store writes one line per event. */
export interface SessionStore {
  readonly sessionId: string | undefined;
  /** Events already present (loaded and repaired) when the store was opened. */
  readonly initialEvents: readonly LogEvent[];
  /** What crash repair did on open, one line each. */
  readonly repairs: readonly string[];
  /**
   * Called synchronously for each appended event (write-on-append), with the event's JSON line (no newline).
   * All or nothing: throws only when the event could not be written whole (disk, closed store), leaving no
   * part of it behind; the log then refuses that append with `STORE_WRITE_FAILED`.
   */
  write(event: LogEvent, line: string): void;
  /** Whether the store outlives the process (a file): `dispose()` then keeps pending inbox items by default. */
  readonly durable?: boolean;
  /** The longest line the store accepts; 16 MiB when absent. */
  readonly maxLineBytes?: number;
  /** Durability point (fsync for files); rejects on failure. */
  flush(): Promise<void>;
  /**
   * Resolves once every event written so far is committed (a store that writes asynchronously, e.g.
   * PostgreSQL); the engine awaits it before each side effect. Absent: writes are synchronous, it passes at once.
   */
  barrier?(): Promise<void>;
  /** Registers a listener called once when the store latches a failure found asynchronously (a lost lease). */
  onFailure?(listener: (error: SessionStoreError) => void): void;
  close(): Promise<void>;
  /** The latched failure once a write or fsync failed (every later write throws it); absent while healthy. */
  readonly failure?: SessionStoreError | undefined;
}

/** One broken invariant, as data; `formatViolation` turns it into text. */
export interface Violation {
  readonly code: string;
  /** Invariant number and name, e.g. `'5 tool-pairing'`. */
  readonly invariant: string;
  readonly seq: number | undefined;
  readonly message: string;
}
