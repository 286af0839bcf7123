// Each test gets its own PostgreSQL database (created here, dropped after), on the project's server.
import { randomUUID } from 'node:crypto';
import pg from 'pg';

export const SERVER_URL = process.env.SEAMCHART_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

function urlFor(name: string): string {
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A fresh, empty database; `drop()` removes it (and ends any connection left to it). */
export async function createTestDatabase(prefix: string): Promise<TestDatabase> {
  const name = `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: urlFor(name),
    name,
    async drop() {
      const client = new pg.Client({ connectionString: SERVER_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
