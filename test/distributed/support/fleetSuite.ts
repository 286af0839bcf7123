// One test file's fleet: its own database, an admin pool and the worker processes, dropped after the file.
import pg from 'pg';
import type { LogEvent } from 'seamchart';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase } from './database.js';
import { createFleet, type Fleet } from './fleet.js';

export interface FleetSuite {
  readonly database: TestDatabase;
  readonly admin: pg.Pool;
  readonly fleet: Fleet;
  /** A session's events as stored, in `seq` order. */
  storedEvents(sessionId: string): Promise<LogEvent[]>;
}

/** Registers the file's `beforeAll`/`afterAll`; the fields are there once `beforeAll` ran. */
export function useFleet(databaseName: string, script: readonly unknown[], adminConnections = 2): FleetSuite {
  let database: TestDatabase | undefined;
  let admin: pg.Pool | undefined;
  let fleet: Fleet | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(databaseName);
    admin = new pg.Pool({ connectionString: database.url, max: adminConnections });
    fleet = createFleet(database.url, script);
  });
  afterAll(async () => {
    await fleet?.close();
    await admin?.end();
    await database?.drop();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the fleet suite is used before its beforeAll ran');
    return value;
  };
  return {
    get database() {
      return ready(database);
    },
    get admin() {
      return ready(admin);
    },
    get fleet() {
      return ready(fleet);
    },
    async storedEvents(sessionId) {
      const rows = await ready(admin).query<{ event: string }>(
        'SELECT event FROM seamchart.events WHERE session_id = $1 ORDER BY seq',
        [sessionId],
      );
      return rows.rows.map((row) => JSON.parse(row.event) as LogEvent);
    },
  };
}
