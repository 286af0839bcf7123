// N01: one conformance suite for every store — memory, JSONL and PostgreSQL (the real server).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  createJsonlStore,
  createPostgresStore,
  type LogEvent,
  memoryStore,
  openJsonlStore,
  openPostgresStore,
} from 'seamchart';
import { type ConformanceStores, storeConformance } from 'seamchart/testing';
import { describe, it } from 'vitest';
import { type FileIo, nodeFileIo } from '../../session/stores/fileIo.js';
import { readSessionFile } from '../../session/stores/jsonlParse.js';
import { createTestDatabase } from './support/database.js';
import { migrateForTest } from './support/migrate.js';

// Each store's suite is named with the acceptance id it proves.
const runner = { describe: (name: string, body: () => void) => describe(`N01 ${name}`, body), it };

storeConformance(
  'memoryStore',
  () => ({
    create: async (sessionId) => memoryStore({ id: sessionId }),
    notApplicable: {
      D01: 'a memory session has one holder, the agent that made it; nothing else can open it',
      'D01-takeover': 'a memory session ends with its process: there is no holder to take over',
      D03: 'memoryStore keeps nothing outside the log, so no write of it can fail',
      'D03-repair': 'a memory session cannot be reopened after a crash: nothing outlives the process',
      D06: 'nothing outlives the process, so there is no inbox to re-queue on resume',
      D05: 'a memory session is never loaded: it cannot be reopened',
      'write-ahead': 'a memory store has nothing to commit: the log is the only copy',
    },
  }),
  runner,
);

/** A real disk with one switch: from `failAfterWrites` writes on, every write fails with ENOSPC. */
function switchableIo(failAfterWrites = Number.POSITIVE_INFINITY): FileIo & { failNow(): void } {
  let budget = failAfterWrites;
  return {
    ...nodeFileIo,
    failNow() {
      budget = 0;
    },
    writeSync(fd, buffer, offset, length, position) {
      if (budget <= 0) throw Object.assign(new Error('ENOSPC: injected, write'), { code: 'ENOSPC' });
      budget--;
      return nodeFileIo.writeSync(fd, buffer, offset, length, position);
    },
  };
}

function deadPid(): number {
  // A process that ran and exited: its pid names no running process (a crashed holder).
  return spawnSync(process.execPath, ['-e', '0']).pid ?? 999_999;
}

storeConformance(
  'JSONL store',
  () => {
    const folder = mkdtempSync(join(tmpdir(), 'seamchart-n01-'));
    const ios = new Map<string, ReturnType<typeof switchableIo>>();
    const pathOf = (sessionId: string) => join(folder, `${sessionId}.jsonl`);
    const kit: ConformanceStores = {
      async create(sessionId) {
        const io = switchableIo();
        ios.set(sessionId, io);
        return createJsonlStore(pathOf(sessionId), { id: sessionId, io });
      },
      open: (sessionId) => openJsonlStore(pathOf(sessionId)),
      read: async (sessionId) => (await readSessionFile(pathOf(sessionId))).events,
      async abandon(sessionId) {
        ios.get(sessionId)?.failNow();
        const lock = { pid: deadPid(), host: hostname(), since: new Date().toISOString(), nonce: 'dead' };
        writeFileSync(`${pathOf(sessionId)}.lock`, `${JSON.stringify(lock)}\n`);
      },
      // The header is one write, then one write per event.
      createFailing: (sessionId, okWrites) =>
        createJsonlStore(pathOf(sessionId), { id: sessionId, io: switchableIo(1 + okWrites) }),
      dispose: async () => rmSync(folder, { recursive: true, force: true }),
    };
    return kit;
  },
  runner,
);

storeConformance(
  'PostgreSQL store',
  async () => {
    const database = await createTestDatabase('seamchart_n01');
    await migrateForTest(database.url);
    const pools: pg.Pool[] = [];
    const heldBy = new Map<string, pg.Pool>();
    const newPool = () => {
      const pool = new pg.Pool({ connectionString: database.url, max: 3 });
      pool.on('error', () => {});
      pools.push(pool);
      return pool;
    };
    const admin = newPool();
    const settings = { leaseMs: 1_000 };
    const kit: ConformanceStores = {
      async create(sessionId) {
        const pool = newPool();
        heldBy.set(sessionId, pool);
        return createPostgresStore({ pool, sessionId, ...settings });
      },
      open: (sessionId) => openPostgresStore({ pool: newPool(), sessionId, ...settings }),
      async read(sessionId) {
        const rows = await admin.query<{ event: string }>(
          'SELECT event FROM seamchart.events WHERE session_id = $1 ORDER BY seq',
          [sessionId],
        );
        return rows.rows.map((row) => JSON.parse(row.event) as LogEvent);
      },
      async abandon(sessionId) {
        // The holder loses its connection for good, and its lease runs out.
        await heldBy.get(sessionId)?.end();
        await admin.query(
          "UPDATE seamchart.sessions SET lease_expires_at = now() - interval '1 second' WHERE id = $1",
          [sessionId],
        );
      },
      async createFailing(sessionId, okWrites) {
        // A real server-side failure: a trigger refuses the session's events from seq `okWrites` on.
        await admin.query(`
          CREATE OR REPLACE FUNCTION seamchart.refuse_late() RETURNS trigger AS $$
          BEGIN
            IF NEW.session_id = '${sessionId}' AND NEW.seq >= ${okWrites} THEN
              RAISE EXCEPTION 'could not extend file: No space left on device';
            END IF;
            RETURN NEW;
          END $$ LANGUAGE plpgsql;
          CREATE TRIGGER refuse_late BEFORE INSERT ON seamchart.events
            FOR EACH ROW EXECUTE FUNCTION seamchart.refuse_late();`);
        return createPostgresStore({ pool: newPool(), sessionId, ...settings });
      },
      async dispose() {
        for (const pool of pools) await pool.end().catch(() => undefined);
        await database.drop();
      },
    };
    return kit;
  },
  runner,
);
