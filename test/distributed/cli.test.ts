// The distributed commands' bad input (exit 2, one line) and `inspect --database-url` on a PostgreSQL session.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresStore, createSessionLog } from 'seamchart';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.js';
import { captureIO } from '../e2e/support/captureIO.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { migrateForTest } from './support/migrate.js';

let database: TestDatabase;
const folder = mkdtempSync(join(tmpdir(), 'seamchart-dist-cli-'));
beforeAll(async () => {
  database = await createTestDatabase('seamchart_cli');
  await migrateForTest(database.url);
});
afterAll(async () => {
  rmSync(folder, { recursive: true, force: true });
  await database?.drop();
});

describe('distributed commands', () => {
  it('worker, send and db refuse bad input with exit 2 and one line', async () => {
    const noUrl = captureIO();
    expect(await main(['worker', '--model', 'scripted:x.json'], noUrl)).toBe(2);
    expect(noUrl.err()).toBe('seamchart: --database-url URL is required (or set $SEAMCHART_DATABASE_URL)\n');
    const badUrl = captureIO();
    expect(await main(['send', '--database-url', 'mysql://x', '--session', 's', 'hi'], badUrl)).toBe(2);
    expect(badUrl.err()).toContain('--database-url expects postgres://');
    const noSession = captureIO();
    expect(await main(['send', '--database-url', database.url, 'hi'], noSession)).toBe(2);
    expect(noSession.err()).toBe('seamchart: send needs --session ID\n');
    const badAction = captureIO();
    expect(await main(['db', 'drop', '--database-url', database.url], badAction)).toBe(2);
    expect(badAction.err()).toBe('seamchart: db expects the action migrate, got "drop"\n');
  });

  it('inspect --database-url --session writes the page of a PostgreSQL session, read without its lease', async () => {
    const store = await createPostgresStore({ connectionString: database.url, sessionId: 'inspect-me' });
    const log = createSessionLog({ store });
    log.appendCore('turn/start', { turn: 1, trigger: { kind: 'message', source: { kind: 'user' } } });
    await log.flush();
    // The session is live (its lease held): inspecting it takes nothing.
    const out = join(folder, 'page.html');
    const io = captureIO();
    expect(
      await main(['inspect', '--database-url', database.url, '--session', 'inspect-me', '--out', out], io),
    ).toBe(0);
    expect(io.out()).toBe(`wrote ${out}\n`);
    expect(readFileSync(out, 'utf8')).toContain('inspect-me');
    const missing = captureIO();
    expect(await main(['inspect', '--database-url', database.url, '--session', 'nobody'], missing)).toBe(2);
    expect(missing.err()).toContain('"nobody" (schema seamchart) does not exist');
    await store.close();
  });
});
