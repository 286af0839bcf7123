import pg from 'pg';
import { migrateSessionTables } from 'seamchart';

/** The session tables alone (what the store needs), without DBOS's schema. */
export async function migrateForTest(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await migrateSessionTables(client, 'seamchart');
  } finally {
    await client.end();
  }
}
