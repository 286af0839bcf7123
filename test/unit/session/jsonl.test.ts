import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  checkInvariants,
  createJsonlStore,
  createSessionLog,
  defineLogEvent,
  openJsonlStore,
  readJsonlLog,
  SessionLoadError,
  SessionStoreError,
} from '../../../session/index.js';
import { am, cm, logOf, ss, step, tc, te, toolTurn, tr, ts, um } from './build.js';
import { lineOf, rejection, sessionFiles } from './sessionFiles.js';

const { freshPath, writeSession } = sessionFiles('seamchart-session-');
/** Replaces the temp path so error messages can be pinned. */
const scrub = (message: string, path: string) => message.replaceAll(path, '<file>');

describe('JSONL session store', () => {
  it('P02 opens a file with a torn last line, an open turn and a tool/call without result repaired', async () => {
    const events = logOf(ts(1), um('go'), ss(1, 1), am(1, 1, ['c1']), tc(1, 1, 'c1'));
    const torn = '{"seq":5,"type":"tool/res';
    const path = writeSession([...events.map(lineOf), torn]);
    const original = readFileSync(path, 'utf8');

    const store = await openJsonlStore(path);

    const tail = store.initialEvents.slice(events.length);
    expect(tail.map((event) => [event.seq, event.type])).toEqual([
      [5, 'tool/result'],
      [6, 'step/end'],
      [7, 'turn/end'],
    ]);
    expect(tail[0]?.data).toMatchObject({
      callId: 'c1',
      isError: true,
      error: { code: 'TOOL_OUTCOME_UNKNOWN' },
    });
    expect(tail[2]?.data).toEqual({ turn: 1, reason: { kind: 'interrupted' } });
    expect(store.repairs).toMatchInlineSnapshot(`
      [
        "line 7: dropped a torn last line (not JSON ("{\\"seq\\":5,\\"type\\":\\"tool/res"))",
        "tool/result c1 (turn 1, step 1): synthetic TOOL_OUTCOME_UNKNOWN result for a tool/call without result",
        "step/end (turn 1, step 1): closed the open step",
        "turn/end (turn 1): closed the open turn as interrupted",
      ]
    `);
    expect(readFileSync(`${path}.bak`, 'utf8')).toBe(original);
    expect(checkInvariants(store.initialEvents)).toEqual([]);
    // The repair is on disk: reading the file again finds nothing to repair.
    await store.close();
    const reread = await readJsonlLog(path);
    expect(reread.repairs).toEqual([]);
    expect(reread.events).toEqual(store.initialEvents);
  });

  it('P03 refuses a file with a malformed line in the middle, naming the line, and leaves it untouched', async () => {
    const events = logOf(ts(1), um('go'), te(1));
    const path = writeSession([lineOf(events[0]!), '{not json', lineOf(events[1]!), lineOf(events[2]!), '']);
    const original = readFileSync(path, 'utf8');

    const error = await rejection(openJsonlStore(path));

    expect(error).toBeInstanceOf(SessionLoadError);
    expect((error as SessionLoadError).code).toBe('MALFORMED_LINE');
    expect((error as SessionLoadError).line).toBe(3);
    expect(scrub(error.message, path)).toMatchInlineSnapshot(
      `"Session file <file>, line 3: not JSON ("{not json"); the file was not modified"`,
    );
    expect(readFileSync(path, 'utf8')).toBe(original);
    expect(existsSync(`${path}.bak`)).toBe(false);
    await expect(readJsonlLog(path)).rejects.toThrow(/line 3/);
  });

  it('writes a header line, then one line per appended event, with file mode 0600', async () => {
    const path = freshPath();
    const store = await createJsonlStore(path, { id: 'sess-new', cwd: '/somewhere' });
    const log = createSessionLog({ store });
    const event = log.appendCore('turn/start', {
      turn: 1,
      trigger: { kind: 'message', source: { kind: 'user' } },
    });
    // Written on append, before any flush.
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(JSON.parse(lines[0]!)).toEqual({
      seamchart: 1,
      sessionId: 'sess-new',
      created: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      cwd: '/somewhere',
    });
    expect(JSON.parse(lines[1]!)).toEqual(event);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    await log.flush();
    await store.close();
  });

  it('narrows an existing empty file to mode 0600', async () => {
    const path = freshPath();
    writeFileSync(path, '');
    chmodSync(path, 0o644);
    await (await createJsonlStore(path)).close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('refuses to create over an existing non-empty file, pointing to openJsonlStore', async () => {
    const path = writeSession([]);
    const error = await rejection(createJsonlStore(path));
    expect(error).toBeInstanceOf(SessionStoreError);
    expect(scrub(error.message, path)).toMatchInlineSnapshot(
      `"Session file <file> already exists and is not empty; resume it with openJsonlStore(path) instead"`,
    );
  });

  it('resumes a file with its sessionId and continues seq', async () => {
    const path = freshPath();
    const first = await createJsonlStore(path, { id: 'sess-resume' });
    const log = createSessionLog({ store: first });
    log.appendCore('turn/start', { turn: 1, trigger: { kind: 'message', source: { kind: 'user' } } });
    log.appendCore('user/message', { content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' } });
    log.appendCore('turn/end', { turn: 1, reason: { kind: 'completed' } });
    await first.close();

    const second = await openJsonlStore(path);
    expect(second.sessionId).toBe('sess-resume');
    expect(second.repairs).toEqual([]);
    expect(existsSync(`${path}.bak`)).toBe(false);
    const resumed = createSessionLog({ store: second });
    expect(resumed.events).toEqual(log.events);
    const next = resumed.appendCore('turn/start', {
      turn: 2,
      trigger: { kind: 'message', source: { kind: 'user' } },
    });
    expect(next.seq).toBe(3);
    resumed.appendCore('turn/end', { turn: 2, reason: { kind: 'aborted' } });
    await second.close();
    expect((await readJsonlLog(path)).events.map((event) => event.seq)).toEqual([0, 1, 2, 3, 4]);
  });

  it('refuses to resume with a different id', async () => {
    const path = writeSession([], 'sess-a');
    const error = await rejection(openJsonlStore(path, { id: 'sess-b' }));
    expect((error as SessionLoadError).code).toBe('ID_MISMATCH');
    expect(scrub(error.message, path)).toMatchInlineSnapshot(
      `"Session file <file> belongs to session "sess-a", not "sess-b"; omit \`id\` to resume with the file’s id"`,
    );
  });

  it('loads an event of an unregistered type as an opaque event', async () => {
    const opaque = { seq: 1, type: 'someone-else/thing', data: { anything: [1, 'two'] }, time: 't' };
    const path = writeSession([
      lineOf(logOf(ts(1))[0]!),
      JSON.stringify(opaque),
      lineOf({ ...logOf(um())[0]!, seq: 2 }),
      '',
    ]);
    const store = await openJsonlStore(path);
    expect(store.initialEvents[1]).toEqual(opaque);
    expect(Object.isFrozen(store.initialEvents[1]?.data)).toBe(true);
    await store.close();
  });

  it('validates a core event on load: invalid data in the middle is a malformed line', async () => {
    const bad = { seq: 1, type: 'user/message', data: { content: 'not blocks' }, time: 't' };
    const path = writeSession([
      lineOf(logOf(ts(1))[0]!),
      JSON.stringify(bad),
      lineOf({ ...logOf(te(1))[0]!, seq: 2 }),
      '',
    ]);
    const error = await rejection(openJsonlStore(path));
    expect(error).toMatchObject({ code: 'MALFORMED_LINE', line: 3 });
  });

  it('readJsonlLog repairs in memory only and leaves the file untouched', async () => {
    const events = logOf(...toolTurn(1).slice(0, 6));
    const path = writeSession([...events.map(lineOf), '{"seq":6,']);
    const original = readFileSync(path, 'utf8');

    const { events: loaded, repairs, sessionId } = await readJsonlLog(path);

    expect(sessionId).toBe('sess-1');
    expect(loaded.slice(events.length).map((event) => event.type)).toEqual([
      'tool/result',
      'tool/result',
      'step/end',
      'turn/end',
    ]);
    expect(repairs).toHaveLength(5);
    expect(checkInvariants(loaded)).toEqual([]);
    expect(readFileSync(path, 'utf8')).toBe(original);
    expect(existsSync(`${path}.bak`)).toBe(false);
  });

  it('gives a tool-call block that never got a tool/call a synthetic adjacent pair', async () => {
    const events = logOf(ts(1), um(), ss(1, 1), am(1, 1, ['c1', 'c2']), tc(1, 1, 'c1'), tr(1, 1, 'c1'));
    const path = writeSession([...events.map(lineOf), '']);
    const { events: loaded } = await readJsonlLog(path);
    expect(
      loaded.slice(events.length).map((event) => [event.type, (event.data as { callId?: string }).callId]),
    ).toEqual([
      ['tool/call', 'c2'],
      ['tool/result', 'c2'],
      ['step/end', undefined],
      ['turn/end', undefined],
    ]);
    expect(checkInvariants(loaded)).toEqual([]);
  });

  it('leaves a cleanly closed file as it is', async () => {
    const events = logOf(ts(1), um(), ...step(1, 1), cm(), te(1));
    const path = writeSession([...events.map(lineOf), '']);
    const original = readFileSync(path, 'utf8');
    const store = await openJsonlStore(path);
    await store.close();
    expect(store.repairs).toEqual([]);
    expect(readFileSync(path, 'utf8')).toBe(original);
  });

  it('validates a registered plugin type on load', async () => {
    const marker = defineLogEvent('jsonl-test/marker', z.object({ at: z.number() }));
    const good = { seq: 1, type: marker.type, data: { at: 1 }, time: 't' };
    const bad = { seq: 2, type: marker.type, data: { at: 'two' }, time: 't' };
    const okPath = writeSession([
      lineOf(logOf(ts(1))[0]!),
      JSON.stringify(good),
      lineOf({ ...logOf(te(1))[0]!, seq: 2 }),
      '',
    ]);
    expect((await readJsonlLog(okPath)).events[1]).toEqual(good);
    const badPath = writeSession([
      lineOf(logOf(ts(1))[0]!),
      JSON.stringify(bad),
      lineOf({ ...logOf(te(1))[0]!, seq: 3 }),
      '',
    ]);
    await expect(readJsonlLog(badPath)).rejects.toMatchObject({ code: 'MALFORMED_LINE', line: 3 });
  });

  it('refuses a file whose first line is not a header', async () => {
    const path = freshPath();
    writeFileSync(path, `${lineOf(logOf(ts(1))[0]!)}\n`);
    const error = await rejection(openJsonlStore(path));
    expect(error).toMatchObject({ code: 'MALFORMED_HEADER', line: 1 });
  });
});
