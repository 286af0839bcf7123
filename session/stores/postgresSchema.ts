import type { ClientBase } from 'pg';

/** The schema version `migrateSessionTables` brings a database to; a store refuses any other. */
export const SESSION_SCHEMA_VERSION = 1;

/** The PostgreSQL schema holding the session tables when none is named. */
export const DEFAULT_SESSION_SCHEMA = 'seamchart';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Checks a schema name (a plain lower-case identifier, so it is never quoted wrongly).
 * @param schema the name to check
 */
export function checkSchemaName(schema: string): string {
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw new TypeError(
      `Expected the PostgreSQL schema name to be a lower-case identifier ([a-z_][a-z0-9_]*), got ${JSON.stringify(schema)}`,
    );
  }
  return schema;
}

// One row per session (its lease lives here), one row per event keyed (session_id, seq) with the fencing
// token it was written under (an audit: tokens never decrease along a session), one per live worker.
function ddl(schema: string): string {
  return `
    CREATE SCHEMA IF NOT EXISTS ${schema};
    CREATE TABLE IF NOT EXISTS ${schema}.meta (key text PRIMARY KEY, value text NOT NULL);
    CREATE TABLE IF NOT EXISTS ${schema}.sessions (
      id text PRIMARY KEY,
      created timestamptz NOT NULL DEFAULT now(),
      cwd text NOT NULL,
      next_seq bigint NOT NULL DEFAULT 0,
      lease_token bigint NOT NULL DEFAULT 0,
      lease_holder text,
      lease_pid integer,
      lease_host text,
      lease_since timestamptz,
      lease_expires_at timestamptz
    );
    CREATE TABLE IF NOT EXISTS ${schema}.events (
      session_id text NOT NULL REFERENCES ${schema}.sessions (id) ON DELETE CASCADE,
      seq bigint NOT NULL,
      type text NOT NULL,
      event text NOT NULL,
      lease_token bigint NOT NULL,
      PRIMARY KEY (session_id, seq)
    );
    CREATE TABLE IF NOT EXISTS ${schema}.workers (
      executor_id text PRIMARY KEY,
      pid integer NOT NULL,
      host text NOT NULL,
      application_version text,
      started_at timestamptz NOT NULL DEFAULT now(),
      heartbeat_at timestamptz NOT NULL DEFAULT now()
    );
    INSERT INTO ${schema}.meta (key, value) VALUES ('schema_version', '${SESSION_SCHEMA_VERSION}')
      ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value;
  `;
}

/**
 * Creates or updates the session tables, idempotently; concurrent callers are serialized by an advisory
 * lock held for the transaction, so racing first launches never fail.
 * @param client a connected client (not inside a transaction)
 * @param schema the schema to hold the tables
 */
export async function migrateSessionTables(client: ClientBase, schema: string): Promise<void> {
  checkSchemaName(schema);
  await client.query('BEGIN');
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('seamchart migrate'), hashtext($1))", [schema]);
    await client.query(ddl(schema));
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * The schema version a database holds, or `undefined` when the session tables are missing.
 * @param client a connected client
 * @param schema the schema of the tables
 */
export async function sessionSchemaVersion(client: ClientBase, schema: string): Promise<number | undefined> {
  const found = await client.query<{ table: string | null }>('SELECT to_regclass($1) AS table', [
    `${schema}.meta`,
  ]);
  if (found.rows[0]?.table == null) return undefined;
  const version = await client.query<{ value: string }>(
    `SELECT value FROM ${schema}.meta WHERE key = 'schema_version'`,
  );
  const value = version.rows[0]?.value;
  return value === undefined ? undefined : Number(value);
}
