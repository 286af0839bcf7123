import type { Pool } from 'pg';
import {
  SESSION_SCHEMA_VERSION,
  SessionLoadError,
  sessionSchemaVersion,
  withPoolClient,
} from '../session/index.js';

/** What to run when a database lacks the tables (said by every refusal). */
export const MIGRATE_HINT =
  'run `seamchart db migrate --database-url URL` (or migrate() from seamchart) first';

/**
 * Refuses a database whose seamchart schema is missing or of another version, saying how to fix it.
 * @param pool a pool on the database
 * @param schema the schema of the session tables
 */
export async function requireMigrated(pool: Pool, schema: string): Promise<void> {
  const version = await withPoolClient(pool, (client) => sessionSchemaVersion(client, schema));
  if (version === SESSION_SCHEMA_VERSION) return;
  throw new SessionLoadError(
    'NOT_MIGRATED',
    `PostgreSQL schema ${schema}`,
    undefined,
    version === undefined
      ? `The database has no seamchart tables (schema ${schema}); ${MIGRATE_HINT}`
      : `The database's seamchart schema is at version ${version}, this build needs ${SESSION_SCHEMA_VERSION}; ${MIGRATE_HINT}`,
  );
}
