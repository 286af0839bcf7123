// N02: one writer per PostgreSQL session — a live lease refuses a second opener; a holder paused past its
// lease (SIGSTOP of a real child) is taken over, and on SIGCONT it is fenced before its next side effect.
import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { checkInvariants, type LogEvent, openPostgresStore, SessionLockedError } from 'seamchart';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { migrateForTest } from './support/migrate.js';

const root = resolve(import.meta.dirname, '../..');
const holderFile = join(import.meta.dirname, 'children/leaseHolder.ts');
const busyWriterFile = join(import.meta.dirname, 'children/busyWriter.ts');
let database: TestDatabase;
let admin: pg.Pool;
const children = new Set<ChildProcess>();
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

beforeAll(async () => {
  database = await createTestDatabase('seamchart_n02');
  await migrateForTest(database.url);
  admin = new pg.Pool({ connectionString: database.url, max: 2 });
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await admin?.end();
  await database?.drop();
});

async function storedEvents(sessionId: string): Promise<LogEvent[]> {
  const rows = await admin.query<{ event: string }>(
    'SELECT event FROM seamchart.events WHERE session_id = $1 ORDER BY seq',
    [sessionId],
  );
  return rows.rows.map((row) => JSON.parse(row.event) as LogEvent);
}

/** Starts the holder. */
function startHolder(sessionId: string, bodyMs: number) {
  return startChild([holderFile, database.url, sessionId, String(bodyMs)]);
}

/** Starts a child script (under tsx); resolves lines as they arrive. */
function startChild(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  const lines: string[] = [];
  const waiters: { line: string; resolve: () => void }[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const waiter of waiters.filter((w) => w.line === line)) waiter.resolve();
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return {
    child,
    lines,
    exited,
    waitFor: (line: string) =>
      lines.includes(line)
        ? Promise.resolve()
        : new Promise<void>((done) => {
            waiters.push({ line, resolve: done });
          }),
  };
}

describe('N02 leases and fencing', () => {
  it('N02 a second opener gets SESSION_LOCKED; a paused holder is taken over, then fenced before its next side effect', async () => {
    const sessionId = 'n02-paused';
    const holder = startHolder(sessionId, 2_500);
    await holder.waitFor('BODY');
    // The body runs, so its tool/call is committed (write-ahead) before it started.
    const before = await storedEvents(sessionId);
    expect(before.at(-1)?.type).toBe('tool/call');

    // A second opener while the holder lives: refused, naming the holder, nothing written.
    const refused = await openPostgresStore({ connectionString: database.url, sessionId }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(SessionLockedError);
    expect((refused as SessionLockedError).code).toBe('SESSION_LOCKED');
    expect((refused as SessionLockedError).message).toContain(`n02-child (process ${holder.child.pid}`);
    expect(await storedEvents(sessionId)).toEqual(before);

    // Paused past its lease (1 s): the next opener takes over and repairs the open turn.
    holder.child.kill('SIGSTOP');
    await sleep(1_600);
    const taken = await openPostgresStore({
      connectionString: database.url,
      sessionId,
      holder: 'n02-parent',
    });
    expect(taken.repairs[0]).toMatch(/^lease: took over the expired lease of n02-child/);
    const afterTakeover = taken.initialEvents;
    expect(afterTakeover.slice(0, before.length)).toEqual(before);
    const unknown = afterTakeover.find((event) => event.type === 'tool/result');
    expect(unknown?.data).toMatchObject({ callId: 'c1', error: { code: 'TOOL_OUTCOME_UNKNOWN' } });
    expect(afterTakeover.at(-1)).toMatchObject({
      type: 'turn/end',
      data: { reason: { kind: 'interrupted' } },
    });

    // SIGCONT: the body finishes, its result is refused (FENCED), no second model request, the agent fails.
    holder.child.kill('SIGCONT');
    expect(await holder.exited).toBe(0);
    expect(holder.lines).toContain('BODY_DONE');
    expect(holder.lines).toContain('STATUS failed');
    expect(holder.lines).toContain('FAILED FENCED');
    expect(holder.lines.filter((line) => line.startsWith('MODEL '))).toEqual(['MODEL 1']);

    // Nothing the holder wrote after the takeover is stored: the log is exactly what the new holder has.
    const stored = await storedEvents(sessionId);
    expect(stored).toEqual(JSON.parse(JSON.stringify(afterTakeover)));
    expect(checkInvariants(stored, { atRest: true })).toEqual([]);
    await taken.close();
    const lease = await admin.query(
      'SELECT lease_holder, lease_token FROM seamchart.sessions WHERE id = $1',
      [sessionId],
    );
    expect(lease.rows[0]).toEqual({ lease_holder: null, lease_token: '2' });
  }, 60_000);

  it('N02 a holder paused mid-write (its transaction holding the session row) is taken over once the server ends that transaction; on SIGCONT it fails cleanly', async () => {
    const sessionId = 'n02-mid-write';
    const application = `n02-busy-${process.pid}`;
    const url = new URL(database.url);
    url.searchParams.set('application_name', application);
    const writer = startChild([busyWriterFile, url.toString(), sessionId]);
    await writer.waitFor('READY');
    // SIGSTOP at a moment its connection sits in a transaction that locked rows (a FOR UPDATE takes an xid).
    const heldInTransaction = async () =>
      (
        await admin.query(
          `SELECT 1 FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid
            WHERE a.application_name = $1 AND a.state = 'idle in transaction' AND l.locktype = 'transactionid'`,
          [application],
        )
      ).rows.length > 0;
    let caught = false;
    for (let attempt = 0; attempt < 2_000 && !caught; attempt++) {
      writer.child.kill('SIGSTOP');
      await sleep(20);
      caught = await heldInTransaction();
      if (!caught) {
        writer.child.kill('SIGCONT');
        await sleep(Math.random() * 20);
      }
    }
    expect(caught).toBe(true);
    const paused = await storedEvents(sessionId);

    // Past its lease the session is taken over: the server ends the paused transaction (idle past its limit),
    // which frees the row. Before the fix the takeover waited on that row for as long as the pause lasted.
    await sleep(1_200);
    const taken = await openPostgresStore({ connectionString: database.url, sessionId, holder: 'n02-taker' });
    expect(taken.repairs[0]).toMatch(/^lease: took over the expired lease of busy-writer/);
    expect(await heldInTransaction()).toBe(false);
    expect(taken.initialEvents.slice(0, paused.length)).toEqual(paused);

    // SIGCONT: its connection is gone and its lease taken; it reports the failure and exits, nothing more is stored.
    writer.child.kill('SIGCONT');
    expect(await writer.exited).toBe(0);
    expect(writer.lines).toContain('EXIT');
    expect(['FAILED FENCED', 'FAILED WRITE_FAILED']).toContain(
      writer.lines.find((line) => line.startsWith('FAILED ')),
    );
    const stored = await storedEvents(sessionId);
    expect(stored).toEqual(JSON.parse(JSON.stringify(taken.initialEvents)));
    expect(checkInvariants(stored, { atRest: true })).toEqual([]);
    await taken.close();
  }, 90_000);
});
