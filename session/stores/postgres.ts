import { hostname } from 'node:os';
import type { Pool, PoolClient } from 'pg';
import type { LogEvent } from '../../kernel/index.js';
import { describeThrown } from '../../kernel/index.js';
import { SessionLoadError, SessionLockedError, SessionStoreError } from '../errors.js';
import { toFrozenJson } from '../freeze.js';
import { pendingInboxItems } from '../inbox.js';
import { DEFAULT_MAX_LINE_BYTES } from '../limits.js';
import { repairEvents } from '../repair.js';
import type { SessionStore } from '../types.js';
import { parseEventLine } from './jsonlParse.js';
import { withPoolClient } from './postgresClient.js';
import {
  checkSchemaName,
  DEFAULT_SESSION_SCHEMA,
  SESSION_SCHEMA_VERSION,
  sessionSchemaVersion,
} from './postgresSchema.js';

/** A session store in PostgreSQL, holding the session's lease until `close()`. */
export interface PostgresStore extends SessionStore {
  readonly sessionId: string;
  readonly maxLineBytes: number;
  /** The fencing token this store's lease holds (every take increments it). */
  readonly leaseToken: number;
}

export interface PostgresStoreOptions {
  /** A pool to use (the caller ends it); or `connectionString`. */
  pool?: Pool;
  /** Where the database is, when no `pool` is given (the store then owns and ends its pool). */
  connectionString?: string;
  sessionId: string;
  /** The schema of the session tables (`seamchart` when absent). */
  schema?: string;
  /** How long a lease lasts without renewal (ms, default 10,000); the holder renews it every third of that. */
  leaseMs?: number;
  /** Who holds the lease, as `SESSION_LOCKED` names it (default `<host>:<pid>`; workers use their executor id). */
  holder?: string;
  /** The longest line the store accepts (bytes); 16 MiB when absent. */
  maxLineBytes?: number;
  /** Working directory recorded for a new session; `process.cwd()` when absent. */
  cwd?: string;
}

export interface OpenPostgresStoreOptions extends PostgresStoreOptions {
  /** Create the session when it does not exist yet. */
  create?: true;
  /** Take the lease even while its holder's lease is live (the sweeper and operators only). */
  takeover?: boolean;
}

const DEFAULT_LEASE_MS = 10_000;
const FETCH_ROWS = 1000;

/**
 * Starts a new session in PostgreSQL and takes its lease. A session that exists is refused (`SESSION_EXISTS`).
 * @param options the pool or connection string, the session id, schema and lease settings
 * @example
 * const store = await createPostgresStore({ connectionString: 'postgres://localhost/app', sessionId: 's1' });
 * const agent = createAgent({ model, store });
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  return openSession(options, 'create');
}

/**
 * Reopens a session in PostgreSQL: takes its lease (an expired one is taken over and listed in `repairs`; a
 * live one is `SESSION_LOCKED`), loads its events with a cursor and repairs a crash (an open turn ends
 * `interrupted`). With `create: true` a missing session is created.
 * @param options the pool or connection string, the session id, schema and lease settings
 * @example
 * const store = await openPostgresStore({ pool, sessionId: 's1' });
 * for (const line of store.repairs) console.warn(line);
 */
export async function openPostgresStore(options: OpenPostgresStoreOptions): Promise<PostgresStore> {
  return openSession(options, options.create === true ? 'open-or-create' : 'open');
}

/**
 * Reads a session's committed events without taking its lease or repairing anything (a live session can be
 * read while a worker runs it; its last turn may be open).
 * @param options the pool or connection string, the session id and schema
 * @example
 * const events = await readPostgresLog({ connectionString, sessionId: 's1' });
 * console.log(checkInvariants(events, { open: true }));
 */
export async function readPostgresLog(
  options: Omit<PostgresStoreOptions, 'leaseMs' | 'holder' | 'cwd'>,
): Promise<LogEvent[]> {
  const settings = settingsOf(options);
  const { pool, owned } = await makePool(options);
  try {
    await withClient(pool, settings, (client) => requireMigrated(client, settings));
    const found = await pool.query(`SELECT 1 FROM ${settings.schema}.sessions WHERE id = $1`, [
      settings.sessionId,
    ]);
    if (found.rowCount === 0) {
      throw new SessionLoadError('NOT_FOUND', settings.where, undefined, `${settings.where} does not exist`);
    }
    return await loadEvents(pool, settings);
  } finally {
    if (owned) await pool.end().catch(() => undefined);
  }
}

interface Settings {
  readonly schema: string;
  readonly sessionId: string;
  readonly leaseMs: number;
  readonly holder: string;
  readonly maxLineBytes: number;
  readonly cwd: string;
  readonly where: string;
}

function settingsOf(options: PostgresStoreOptions): Settings {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('Expected PostgreSQL store options { pool | connectionString, sessionId }');
  }
  const { sessionId } = options;
  if (typeof sessionId !== 'string' || sessionId.length === 0 || sessionId.length > 200) {
    throw new TypeError(
      `Expected \`sessionId\` to be a non-empty string of at most 200 characters, got ${JSON.stringify(sessionId)}`,
    );
  }
  if (options.pool === undefined && typeof options.connectionString !== 'string') {
    throw new TypeError('Expected a `pool` or a `connectionString` for the PostgreSQL store');
  }
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  if (!Number.isInteger(leaseMs) || leaseMs < 100) {
    throw new TypeError(`Expected \`leaseMs\` to be an integer of at least 100, got ${String(leaseMs)}`);
  }
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  if (!Number.isInteger(maxLineBytes) || maxLineBytes < 1024) {
    throw new TypeError(
      `Expected \`maxLineBytes\` to be an integer of at least 1024, got ${String(maxLineBytes)}`,
    );
  }
  const schema = checkSchemaName(options.schema ?? DEFAULT_SESSION_SCHEMA);
  return {
    schema,
    sessionId,
    leaseMs,
    holder: options.holder ?? `${hostname()}:${process.pid}`,
    maxLineBytes,
    cwd: options.cwd ?? process.cwd(),
    where: `PostgreSQL session ${JSON.stringify(sessionId)} (schema ${schema})`,
  };
}

// pg is loaded here, not at the top: the embedded default (JSONL, the CLI's run) never loads it.
async function makePool(options: PostgresStoreOptions): Promise<{ pool: Pool; owned: boolean }> {
  if (options.pool !== undefined) return { pool: options.pool, owned: false };
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: options.connectionString, max: 3 });
  // An idle client's error (the server restarted) must not crash the process; the next query reports it.
  pool.on('error', () => {});
  return { pool, owned: true };
}

interface LeaseRow {
  readonly lease_token: string;
  readonly lease_holder: string | null;
  readonly lease_pid: number | null;
  readonly lease_host: string | null;
  readonly lease_since: Date | null;
  readonly live: boolean;
}

async function openSession(
  options: OpenPostgresStoreOptions,
  mode: 'create' | 'open' | 'open-or-create',
): Promise<PostgresStore> {
  const settings = settingsOf(options);
  const { pool, owned } = await makePool(options);
  let token: number | undefined;
  try {
    const taken = await takeLease(pool, settings, mode, options.takeover === true);
    const held = taken.token;
    token = held;
    const events = taken.created ? [] : await loadEvents(pool, settings);
    const repaired = repairEvents(events);
    const time = new Date().toISOString();
    const synthetic = repaired.events.map(
      (draft, offset) =>
        toFrozenJson(
          { seq: events.length + offset, type: draft.type, data: draft.data, time },
          'event',
        ) as unknown as LogEvent,
    );
    if (synthetic.length > 0) {
      await fenced(pool, settings, held, (client) =>
        insertEvents(
          client,
          settings,
          held,
          synthetic.map((event) => ({ seq: event.seq, type: event.type, line: JSON.stringify(event) })),
        ),
      );
    }
    const all = [...events, ...synthetic];
    return createLiveStore(pool, owned, settings, held, all, [
      ...taken.repairs,
      ...repaired.repairs,
      ...pendingInboxItems(all).map(
        ({ accepted, why }) => `inbox: ${accepted.id} is re-queued on resume (${why})`,
      ),
    ]);
  } catch (error) {
    if (token !== undefined) await releaseLease(pool, settings, token).catch(() => undefined);
    if (owned) await pool.end().catch(() => undefined);
    throw error;
  }
}

async function withClient<T>(
  pool: Pool,
  settings: Settings,
  run: (client: PoolClient) => Promise<T>,
): Promise<T> {
  let checkedOut = false;
  try {
    return await withPoolClient(pool, (client) => {
      checkedOut = true;
      return run(client);
    });
  } catch (error) {
    if (checkedOut) throw error;
    throw new SessionLoadError(
      'READ_FAILED',
      settings.where,
      undefined,
      `Cannot connect to PostgreSQL for ${settings.where}: ${describeThrown(error)}`,
      { cause: error },
    );
  }
}

/**
 * Opens a transaction the server ends if it sits idle past the limit: a holder paused between statements (SIGSTOP,
 * a frozen VM) would otherwise keep the session's row lock, and no other worker could take the session over.
 */
async function begin(client: PoolClient, settings: Settings, mode = ''): Promise<void> {
  await client.query(
    `BEGIN${mode}; SET LOCAL idle_in_transaction_session_timeout = ${idleTransactionLimitMs(settings)}`,
  );
}

function idleTransactionLimitMs(settings: Settings): number {
  return Math.max(settings.leaseMs * 2, 10_000);
}

async function requireMigrated(client: PoolClient, settings: Settings): Promise<void> {
  const version = await sessionSchemaVersion(client, settings.schema);
  if (version === SESSION_SCHEMA_VERSION) return;
  throw new SessionLoadError(
    'NOT_MIGRATED',
    settings.where,
    undefined,
    version === undefined
      ? `The database has no seamchart tables in schema ${settings.schema}; run \`seamchart db migrate --database-url URL\` (or migrate() from seamchart) first`
      : `The database's seamchart schema ${settings.schema} is at version ${version}, this build needs ${SESSION_SCHEMA_VERSION}; run \`seamchart db migrate --database-url URL\``,
  );
}

async function takeLease(
  pool: Pool,
  settings: Settings,
  mode: 'create' | 'open' | 'open-or-create',
  takeover: boolean,
): Promise<{ token: number; created: boolean; repairs: string[] }> {
  const { schema, sessionId } = settings;
  return withClient(pool, settings, async (client) => {
    await requireMigrated(client, settings);
    await begin(client, settings);
    try {
      let created = false;
      if (mode !== 'open') {
        const inserted = await client.query(
          `INSERT INTO ${schema}.sessions (id, cwd) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`,
          [sessionId, settings.cwd],
        );
        created = inserted.rowCount === 1;
        if (!created && mode === 'create') {
          throw new SessionStoreError(
            'SESSION_EXISTS',
            settings.where,
            `${settings.where} already exists; open it with openPostgresStore instead`,
          );
        }
      }
      const found = await client.query<LeaseRow>(
        `SELECT lease_token, lease_holder, lease_pid, lease_host, lease_since,
                (lease_expires_at IS NOT NULL AND lease_expires_at > now()) AS live
           FROM ${schema}.sessions WHERE id = $1 FOR UPDATE`,
        [sessionId],
      );
      const row = found.rows[0];
      if (row === undefined) {
        throw new SessionLoadError(
          'NOT_FOUND',
          settings.where,
          undefined,
          `${settings.where} does not exist (create it with createPostgresStore, or open with create: true)`,
        );
      }
      const repairs: string[] = [];
      if (row.lease_holder !== null) {
        const who = describeLeaseHolder(row);
        if (row.live && !takeover) {
          throw new SessionLockedError(
            settings.where,
            {
              pid: row.lease_pid ?? 0,
              host: row.lease_host ?? 'unknown',
              since: row.lease_since?.toISOString() ?? 'unknown',
            },
            `${settings.where} is held by ${who}; only one writer may hold a session: wait for it to close, or for its lease to expire`,
          );
        }
        repairs.push(
          row.live
            ? `lease: broke the live lease of ${who} (takeover)`
            : `lease: took over the expired lease of ${who}`,
        );
      }
      const updated = await client.query<{ lease_token: string }>(
        `UPDATE ${schema}.sessions
            SET lease_token = lease_token + 1, lease_holder = $2, lease_pid = $3, lease_host = $4,
                lease_since = now(), lease_expires_at = now() + $5 * interval '1 millisecond'
          WHERE id = $1 RETURNING lease_token`,
        [sessionId, settings.holder, process.pid, hostname(), settings.leaseMs],
      );
      await client.query('COMMIT');
      return { token: Number(updated.rows[0]?.lease_token), created, repairs };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}

function describeLeaseHolder(row: LeaseRow): string {
  return `${row.lease_holder} (process ${row.lease_pid ?? '?'} on ${row.lease_host ?? '?'}, since ${row.lease_since?.toISOString() ?? '?'})`;
}

// A server-side cursor: memory grows with the events, never with a whole result set held at once.
async function loadEvents(pool: Pool, settings: Settings): Promise<LogEvent[]> {
  return withClient(pool, settings, async (client) => {
    const events: LogEvent[] = [];
    await begin(client, settings, ' READ ONLY');
    try {
      await client.query(
        `DECLARE session_events NO SCROLL CURSOR FOR
           SELECT seq, event FROM ${settings.schema}.events
            WHERE session_id = ${client.escapeLiteral(settings.sessionId)} ORDER BY seq`,
      );
      for (;;) {
        const chunk = await client.query<{ seq: string; event: string }>(
          `FETCH ${FETCH_ROWS} FROM session_events`,
        );
        for (const row of chunk.rows) {
          const parsed = parseEventLine(row.event, events.length);
          if (typeof parsed === 'string') {
            throw new SessionLoadError(
              'MALFORMED_LINE',
              settings.where,
              undefined,
              `${settings.where}, event seq ${row.seq}: ${parsed}`,
            );
          }
          events.push(parsed);
        }
        if (chunk.rows.length < FETCH_ROWS) break;
      }
      await client.query('COMMIT');
      return events;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}

interface PendingRow {
  readonly seq: number;
  readonly type: string;
  readonly line: string;
}

async function insertEvents(
  client: PoolClient,
  settings: Settings,
  token: number,
  rows: readonly PendingRow[],
): Promise<void> {
  await client.query(
    `INSERT INTO ${settings.schema}.events (session_id, lease_token, seq, type, event)
       SELECT $1, $2, * FROM unnest($3::bigint[], $4::text[], $5::text[])`,
    [
      settings.sessionId,
      token,
      rows.map((row) => row.seq),
      rows.map((row) => row.type),
      rows.map((row) => row.line),
    ],
  );
  const last = rows[rows.length - 1];
  if (last !== undefined) {
    await client.query(`UPDATE ${settings.schema}.sessions SET next_seq = $2 WHERE id = $1`, [
      settings.sessionId,
      last.seq + 1,
    ]);
  }
}

class FencedError extends SessionStoreError {}

// Every write checks the fencing token in its own transaction: a holder whose lease was taken writes nothing.
async function fenced(
  pool: Pool,
  settings: Settings,
  token: number,
  write: (client: PoolClient) => Promise<void>,
): Promise<void> {
  await withPoolClient(pool, async (client) => {
    await begin(client, settings);
    try {
      const found = await client.query<{ lease_token: string; lease_holder: string | null }>(
        `SELECT lease_token, lease_holder FROM ${settings.schema}.sessions WHERE id = $1 FOR UPDATE`,
        [settings.sessionId],
      );
      const row = found.rows[0];
      if (row === undefined || Number(row.lease_token) !== token) {
        throw new FencedError(
          'FENCED',
          settings.where,
          `${settings.where}: this writer's lease (token ${token}) was taken over by ${row?.lease_holder ?? 'another writer'} ` +
            `(token ${row?.lease_token ?? '?'}); it wrote nothing and accepts no further writes`,
        );
      }
      await write(client);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}

async function releaseLease(pool: Pool, settings: Settings, token: number): Promise<void> {
  await pool.query(
    `UPDATE ${settings.schema}.sessions SET lease_holder = NULL, lease_pid = NULL, lease_host = NULL,
            lease_since = NULL, lease_expires_at = NULL
      WHERE id = $1 AND lease_token = $2`,
    [settings.sessionId, token],
  );
}

function createLiveStore(
  pool: Pool,
  ownsPool: boolean,
  settings: Settings,
  token: number,
  initialEvents: readonly LogEvent[],
  repairs: readonly string[],
): PostgresStore {
  const { where, maxLineBytes } = settings;
  let pending: PendingRow[] = [];
  // The one write pipeline: batches commit in order, each after the one before.
  let committed: Promise<void> = Promise.resolve();
  let scheduled = false;
  let closed = false;
  let failure: SessionStoreError | undefined;
  const failureListeners: ((error: SessionStoreError) => void)[] = [];
  const latch = (error: unknown): void => {
    if (failure !== undefined) return;
    failure =
      error instanceof SessionStoreError
        ? error
        : new SessionStoreError(
            'WRITE_FAILED',
            where,
            `Cannot write to ${where} (${describeThrown(error)}); the store accepts no further writes`,
            { cause: error },
          );
    pending = [];
    for (const listener of failureListeners.splice(0)) listener(failure);
  };
  const commitPending = async (): Promise<void> => {
    scheduled = false;
    const batch = pending;
    pending = [];
    if (failure !== undefined || batch.length === 0) return;
    try {
      await fenced(pool, settings, token, (client) => insertEvents(client, settings, token, batch));
    } catch (error) {
      latch(error);
    }
  };
  const renew = async (): Promise<void> => {
    if (closed || failure !== undefined) return;
    try {
      const renewed = await pool.query(
        `UPDATE ${settings.schema}.sessions SET lease_expires_at = now() + $3 * interval '1 millisecond'
          WHERE id = $1 AND lease_token = $2`,
        [settings.sessionId, token, settings.leaseMs],
      );
      if (renewed.rowCount === 0 && !closed) {
        latch(
          new FencedError(
            'FENCED',
            where,
            `${where}: this writer's lease (token ${token}) was taken over; it accepts no further writes`,
          ),
        );
      }
    } catch {
      // A renewal that cannot reach the server is retried on the next tick; writes report their own failures.
    }
  };
  const renewal = setInterval(() => void renew(), Math.max(50, Math.floor(settings.leaseMs / 3)));
  renewal.unref();
  const barrier = async (): Promise<void> => {
    await committed;
    if (failure !== undefined) throw failure;
  };
  return Object.freeze({
    sessionId: settings.sessionId,
    maxLineBytes,
    leaseToken: token,
    durable: true,
    initialEvents: Object.freeze([...initialEvents]),
    repairs: Object.freeze([...repairs]),
    get failure() {
      return failure;
    },
    write(event: LogEvent, line: string = JSON.stringify(event)) {
      if (failure !== undefined) throw failure;
      if (closed)
        throw new SessionStoreError(
          'CLOSED',
          where,
          `Cannot write event seq ${event.seq}: ${where} was closed`,
        );
      const bytes = Buffer.byteLength(line, 'utf8');
      if (bytes > maxLineBytes) {
        throw new SessionStoreError(
          'LINE_TOO_LONG',
          where,
          `Cannot write event seq ${event.seq} (${event.type}): its line of ${bytes} bytes exceeds maxLineBytes (${maxLineBytes})`,
        );
      }
      pending.push({ seq: event.seq, type: event.type, line });
      if (!scheduled) {
        scheduled = true;
        committed = committed.then(commitPending);
      }
    },
    barrier,
    flush: barrier,
    onFailure(listener: (error: SessionStoreError) => void) {
      if (failure !== undefined) listener(failure);
      else failureListeners.push(listener);
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(renewal);
      await committed;
      try {
        if (failure === undefined) await releaseLease(pool, settings, token);
      } finally {
        if (ownsPool) await pool.end().catch(() => undefined);
      }
    },
  });
}
