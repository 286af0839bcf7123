import { DEFAULT_SESSION_SCHEMA, migrateSessionTables } from '../session/index.js';

export interface MigrateOptions {
  databaseUrl: string;
  /** The schema of the session tables (`seamchart` when absent). */
  schema?: string;
  /** The schema of DBOS's system tables (`dbos` when absent). */
  dbosSchema?: string;
}

/**
 * Creates or updates everything the distributed mode keeps in PostgreSQL: the session tables and DBOS's system
 * schema. Idempotent; concurrent runs wait for each other (an advisory lock), so racing launches never fail.
 * @param options the database and schema names
 * @example
 * await migrate({ databaseUrl: 'postgres://postgres@127.0.0.1:5432/app' });
 */
export async function migrate(options: MigrateOptions): Promise<void> {
  const { default: pg } = await import('pg');
  const { DBOS } = await import('@dbos-inc/dbos-sdk');
  const client = new pg.Client({ connectionString: options.databaseUrl });
  await client.connect();
  try {
    await migrateSessionTables(client, options.schema ?? DEFAULT_SESSION_SCHEMA);
    // DBOS's own migration is serialized by a session-level advisory lock held on this connection.
    await client.query("SELECT pg_advisory_lock(hashtext('seamchart migrate'), hashtext('dbos'))");
    try {
      await DBOS.migrate(options.databaseUrl, { schemaName: options.dbosSchema ?? 'dbos' });
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext('seamchart migrate'), hashtext('dbos'))");
    }
  } finally {
    await client.end();
  }
}
