import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { main } from '../../../cli/main.js';
import type { LogEvent } from '../../../kernel/index.js';
import {
  checkInvariants,
  createJsonlStore,
  createSessionLog,
  openJsonlStore,
  readJsonlLog,
  SessionLoadError,
  SessionLockedError,
  SessionLogError,
  SessionStoreError,
} from '../../../session/index.js';
import { READ_CHUNK_BYTES } from '../../../session/stores/jsonlParse.js';
import { captureIO } from '../../e2e/support/captureIO.js';
import { am, cm, logOf, se, ss, tc, te, tr, ts, um } from './build.js';
import { faultIo } from './faultIo.js';
import { header, lineOf, rejection, sessionFiles } from './sessionFiles.js';

const root = resolve(import.meta.dirname, '../../..');
const childFile = join(import.meta.dirname, 'children/storeChild.ts');
const { directory, freshPath, writeSession } = sessionFiles('seamchart-storage-');
const userTurn = { turn: 1, trigger: { kind: 'message', source: { kind: 'user' } } } as const;

function startChild(args: readonly string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', childFile, ...args], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
}
/** Resolves the child's next line of output. */
function nextLine(child: ChildProcess): Promise<string> {
  const lines = linesOf(child);
  return new Promise((done, fail) => {
    const queued = lines.queue.shift();
    if (queued !== undefined) {
      done(queued);
      return;
    }
    lines.waiters.push(done);
    child.once('exit', (code) => fail(new Error(`child exited (${code}) before writing a line`)));
  });
}
const readers = new WeakMap<ChildProcess, { queue: string[]; waiters: ((line: string) => void)[] }>();
function linesOf(child: ChildProcess) {
  let reader = readers.get(child);
  if (reader !== undefined) return reader;
  const state = { queue: [] as string[], waiters: [] as ((line: string) => void)[] };
  readers.set(child, state);
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n')) {
      const line = text.slice(0, newline);
      text = text.slice(newline + 1);
      const waiter = state.waiters.shift();
      if (waiter) waiter(line);
      else state.queue.push(line);
    }
  });
  reader = state;
  return reader;
}
const firstLine = nextLine;
function exited(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done();
    else child.once('exit', () => done());
  });
}

describe('D01 one writer per session', () => {
  it('D01 a second openJsonlStore in this process fails with SESSION_LOCKED and leaves the session whole', async () => {
    const path = freshPath();
    const store = await createJsonlStore(path, { id: 'writer' });
    const log = createSessionLog({ store });
    log.appendCore('turn/start', userTurn);
    log.appendCore('user/message', { content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' } });
    const before = readFileSync(path);

    const error = await rejection(openJsonlStore(path));

    expect(error).toBeInstanceOf(SessionLockedError);
    expect(error).toMatchObject({ code: 'SESSION_LOCKED', holder: { pid: process.pid, host: hostname() } });
    expect(error.message).toContain(`process ${process.pid} on ${hostname()}`);
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(existsSync(`${path}.bak`)).toBe(false);
    // The writer goes on, and everything it wrote is in the file.
    log.appendCore('turn/end', { turn: 1, reason: { kind: 'completed' } });
    await log.flush();
    await store.close();
    const reread = await readJsonlLog(path);
    expect(reread.events).toEqual(log.events);
    expect(reread.repairs).toEqual([]);
    expect(checkInvariants(reread.events)).toEqual([]);
    // Closing released the lock: the session opens again.
    const again = await openJsonlStore(path);
    expect(again.repairs).toEqual([]);
    await again.close();
  });

  it('D01 a live writer in another process locks the session; once SIGKILLed, its lock is taken over', async () => {
    const path = freshPath();
    const child = startChild(['hold', path, 'held-by-child']);
    let since = '';
    try {
      expect(await firstLine(child)).toBe('READY');
      since = JSON.parse(readFileSync(`${path}.lock`, 'utf8')).since;
      const before = readFileSync(path);
      const error = await rejection(openJsonlStore(path));
      expect(error).toMatchObject({ code: 'SESSION_LOCKED', holder: { pid: child.pid, host: hostname() } });
      expect(readFileSync(path).equals(before)).toBe(true);
      // A reader never locks: the live session reads while its writer holds it.
      const live = await readJsonlLog(path);
      expect(live.writer).toMatchObject({ pid: child.pid });
      expect(live.events.map((event) => event.type)).toEqual(['turn/start']);
      expect(live.repairs).toEqual([]);
      expect(checkInvariants(live.events, { open: true })).toEqual([]);
    } finally {
      child.kill('SIGKILL');
      await exited(child);
    }
    expect(existsSync(`${path}.lock`)).toBe(true);
    const store = await openJsonlStore(path);
    expect(store.sessionId).toBe('held-by-child');
    expect(store.repairs[0]).toBe(
      `lock: took over the lock of process ${child.pid} on ${hostname()} (since ${since}), which is no longer running`,
    );
    expect(store.repairs.slice(1)).toEqual(['turn/end (turn 1): closed the open turn as interrupted']);
    expect(JSON.parse(readFileSync(`${path}.lock`, 'utf8'))).toMatchObject({ pid: process.pid });
    await store.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('D01 a lock from another host is broken only with breakLock, and the break is listed', async () => {
    const path = writeSession(`${lineOf(logOf(ts(1))[0]!)}\n${lineOf(logOf(ts(1), te(1))[1]!)}\n`);
    const foreign = { pid: 4242, host: 'elsewhere.example', since: '2025-01-01T00:00:00.000Z', nonce: 'n' };
    writeFileSync(`${path}.lock`, JSON.stringify(foreign));
    const error = await rejection(openJsonlStore(path));
    expect(error).toMatchObject({ code: 'SESSION_LOCKED', holder: { pid: 4242, host: 'elsewhere.example' } });
    expect(error.message).toContain('breakLock: true');
    const store = await openJsonlStore(path, { breakLock: true });
    expect(store.repairs).toEqual([
      'lock: broke the lock of process 4242 on elsewhere.example (since 2025-01-01T00:00:00.000Z) (breakLock)',
    ]);
    await store.close();
  });
});

describe('Y02 --break-lock never breaks a live holder on this host', () => {
  it('Y02 breakLock: true and run --resume --break-lock are refused while the holder runs; the file and lock are untouched', async () => {
    const path = freshPath();
    const child = startChild(['hold', path, 'held-live']);
    try {
      expect(await firstLine(child)).toBe('READY');
      const before = readFileSync(path);
      const lockBefore = readFileSync(`${path}.lock`);
      const error = await rejection(openJsonlStore(path, { breakLock: true }));
      expect(error).toMatchObject({
        code: 'SESSION_LOCKED',
        holderState: 'alive',
        holder: { pid: child.pid },
      });
      expect(error.message).toContain(`process ${child.pid} is still running on this host`);
      expect(error.message).not.toContain('breakLock: true');
      const script = join(directory, 'y02-script.json');
      writeFileSync(script, JSON.stringify([{ text: 'should not run' }]));
      const io = captureIO();
      const code = await main(
        ['run', 'again', '--model', `scripted:${script}`, '--session', path, '--resume', '--break-lock'],
        io,
      );
      expect(code).toBe(2);
      expect(io.err()).toContain(`in use by process ${child.pid} on this host`);
      expect(io.err()).not.toContain('--break-lock');
      expect(readFileSync(path).equals(before)).toBe(true);
      expect(readFileSync(`${path}.lock`).equals(lockBefore)).toBe(true);
      expect(existsSync(`${path}.bak`)).toBe(false);
    } finally {
      child.kill('SIGKILL');
      await exited(child);
    }
  });
});

describe('D02 exclusive create', () => {
  it('D02 two concurrent createJsonlStore on one path: one wins, the other gets FILE_EXISTS', async () => {
    const path = freshPath();
    const results = await Promise.allSettled([
      createJsonlStore(path, { id: 'first' }),
      createJsonlStore(path, { id: 'second' }),
    ]);
    const won = results.filter((result) => result.status === 'fulfilled');
    const lost = results.filter((result) => result.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost.map((result) => (result as PromiseRejectedResult).reason)).toMatchObject([
      { code: 'FILE_EXISTS' },
    ]);
    const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof createJsonlStore>>>).value;
    await winner.close();
    expect((await readJsonlLog(path)).sessionId).toBe(winner.sessionId);
  });

  it('D02 processes racing to create one file: exactly one succeeds, every other gets FILE_EXISTS', async () => {
    const racers = 3;
    const trials = 3;
    // All trials at once; every racer waits until all are up, then one byte on stdin releases them together.
    const runs = Array.from({ length: trials }, () => {
      const path = freshPath();
      const children = Array.from({ length: racers }, (_, index) =>
        startChild(['create', path, `racer-${index}`]),
      );
      return { path, children };
    });
    const all = runs.flatMap((run) => run.children);
    expect(await Promise.all(all.map(nextLine))).toEqual(all.map(() => 'WAITING'));
    for (const child of all) child.stdin?.write('go');
    for (const { path, children } of runs) {
      const results = (await Promise.all(children.map(nextLine))).map(
        (line) => JSON.parse(line) as { ok: boolean; id?: string; code?: string },
      );
      await Promise.all(children.map(exited));
      const winners = results.filter((result) => result.ok);
      expect(winners).toHaveLength(1);
      expect(results.filter((result) => !result.ok).map((result) => result.code)).toEqual(
        Array(racers - 1).fill('FILE_EXISTS'),
      );
      expect((await readJsonlLog(path)).sessionId).toBe(winners[0]?.id);
      expect(existsSync(`${path}.lock`)).toBe(false);
    }
    // Nine node processes start at once: on a loaded two-core machine that alone can take most of 20 s.
  }, 60_000);
});

describe('failed writes are undone and latch', () => {
  it('an append that fails mid-line is cut back, throws SessionStoreError, and every later write refuses', async () => {
    const path = freshPath();
    const probe = await createJsonlStore(freshPath());
    await probe.close();
    // Header plus turn/start fit; user/message stops mid-line.
    const headerBytes = Buffer.byteLength(`${readFileSync(probe.path, 'utf8')}`) + 20;
    const io = faultIo({ failWritesAfterBytes: headerBytes + 150 });
    const store = await createJsonlStore(path, { id: 'sess-1', io });
    const log = createSessionLog({ store });
    log.appendCore('turn/start', userTurn);
    const fileAfterStart = readFileSync(path, 'utf8');
    const failed = (() => {
      try {
        log.appendCore('user/message', {
          content: [{ type: 'text', text: 'x'.repeat(400) }],
          source: { kind: 'user' },
        });
      } catch (error) {
        return error as SessionLogError;
      }
      throw new Error('expected the append to fail');
    })();
    expect(io.written()).toBeGreaterThan(Buffer.byteLength(fileAfterStart));
    expect(failed).toBeInstanceOf(SessionLogError);
    expect(failed.code).toBe('STORE_WRITE_FAILED');
    expect(failed.cause).toBeInstanceOf(SessionStoreError);
    expect(failed.cause).toMatchObject({ code: 'WRITE_FAILED', cause: { code: 'ENOSPC' } });
    // The partial line is gone: the file is what it was before the failed append.
    expect(readFileSync(path, 'utf8')).toBe(fileAfterStart);
    expect(log.storeFailure).toBe(failed.cause);
    const writesBefore = io.written();
    expect(() => log.appendCore('turn/end', { turn: 1, reason: { kind: 'completed' } })).toThrow(
      expect.objectContaining({ cause: failed.cause }),
    );
    expect(() => store.write(log.events[0]!, 'x')).toThrow(failed.cause as Error);
    await expect(log.flush()).rejects.toBe(failed.cause);
    expect(io.written()).toBe(writesBefore);
    expect(log.events.map((event) => event.type)).toEqual(['turn/start']);
    await store.close();
    // The file loads, equals the in-memory log, and reopening repairs the open turn.
    expect((await readJsonlLog(path)).events.slice(0, 1)).toEqual(log.events);
    const reopened = await openJsonlStore(path);
    expect(reopened.initialEvents.map((event) => event.type)).toEqual(['turn/start', 'turn/end']);
    expect(checkInvariants(reopened.initialEvents)).toEqual([]);
    await reopened.close();
  });

  it('a failing fsync latches the store the same way', async () => {
    const path = freshPath();
    // Creation fsyncs the file and the directory; the flush after it is the third fsync.
    const io = faultIo({ failFsync: 'EIO', failFsyncFrom: 3 });
    const store = await createJsonlStore(path, { io });
    const log = createSessionLog({ store });
    log.appendCore('turn/start', userTurn);
    const error = await rejection(log.flush());
    expect(error).toMatchObject({ name: 'SessionStoreError', code: 'FSYNC_FAILED', cause: { code: 'EIO' } });
    expect(() => log.appendCore('turn/end', { turn: 1, reason: { kind: 'completed' } })).toThrow(
      expect.objectContaining({ code: 'STORE_WRITE_FAILED', cause: error }),
    );
    await store.close();
    expect((await readJsonlLog(path)).events.slice(0, 1)).toEqual(log.events);
  });
});

describe('D04 repair never destroys', () => {
  it('D04 a complete last line with an invalid event is a load error naming the line, not a torn line', async () => {
    const events = logOf(ts(1), um('go'), te(1));
    const bad = JSON.stringify({ seq: 3, type: 'user/message', data: { content: 'not blocks' }, time: 't' });
    const path = writeSession(`${events.map(lineOf).join('\n')}\n${bad}\n`);
    const original = readFileSync(path);
    for (const load of [() => openJsonlStore(path), () => readJsonlLog(path)]) {
      const error = await rejection(load());
      expect(error).toBeInstanceOf(SessionLoadError);
      expect(error).toMatchObject({ code: 'MALFORMED_LINE', line: 5 });
      expect(error.message).toContain('line 5: invalid data for `user/message`');
    }
    expect(readFileSync(path).equals(original)).toBe(true);
    expect(existsSync(`${path}.bak`)).toBe(false);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('D04 two successive repairs leave .bak and .bak.1 with their originals, byte for byte', async () => {
    // Lines in an unusual but valid spelling (spaces, key order): kept exactly as they are.
    const spelled = (event: LogEvent) =>
      `{ "type": ${JSON.stringify(event.type)}, "seq": ${event.seq}, "time": "t", "data": ${JSON.stringify(event.data, null, 1).replaceAll('\n', ' ')} }`;
    const first = logOf(ts(1), um('go'), ss(1, 1), am(1, 1, ['c1']), tc(1, 1, 'c1'));
    const path = writeSession(`${first.map(spelled).join('\n')}\n{"seq":5,"type":"tool/re`);
    chmodSync(path, 0o640);
    const original1 = readFileSync(path);

    const store1 = await openJsonlStore(path);
    await store1.close();
    const repaired1 = readFileSync(path);
    const kept1 = original1.subarray(0, original1.lastIndexOf(0x0a) + 1);
    expect(repaired1.subarray(0, kept1.length).equals(kept1)).toBe(true);
    expect(readFileSync(`${path}.bak`).equals(original1)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o640);
    expect(statSync(`${path}.bak`).mode & 0o777).toBe(0o640);

    // A second crash: a new open turn and a valid last line without its newline.
    const next = logOf(ts(1), te(1), ts(2), um('again'));
    const tail = `${lineOf({ ...next[2]!, seq: 8 })}\n${lineOf({ ...next[3]!, seq: 9 })}`;
    writeFileSync(path, Buffer.concat([repaired1, Buffer.from(tail)]));
    const original2 = readFileSync(path);
    const store2 = await openJsonlStore(path);
    expect(store2.repairs).toEqual([
      'line 11: added the missing final newline',
      'turn/end (turn 2): closed the open turn as interrupted',
    ]);
    await store2.close();
    expect(readFileSync(`${path}.bak`).equals(original1)).toBe(true);
    expect(readFileSync(`${path}.bak.1`).equals(original2)).toBe(true);
    const repaired2 = readFileSync(path);
    expect(repaired2.subarray(0, original2.length).equals(original2)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o640);
    const reread = await readJsonlLog(path);
    expect(reread.repairs).toEqual([]);
    expect(checkInvariants(reread.events)).toEqual([]);
  });
});

describe('D05 large sessions, bounded lines', () => {
  it('D05 a session of 200,000 events loads by streaming, in bounded chunks, with no whole-file read', async () => {
    const path = freshPath();
    const lines: string[] = [header('big')];
    let seq = 0;
    const time = '2025-01-01T00:00:00.000Z';
    for (let turn = 1; seq < 200_000; turn++) {
      const add = (type: string, data: unknown) =>
        lines.push(JSON.stringify({ seq: seq++, type, data, time }));
      add('turn/start', { turn, trigger: { kind: 'message', source: { kind: 'user' } } });
      add('user/message', { content: [{ type: 'text', text: `message ${turn}` }], source: { kind: 'user' } });
      add('turn/end', { turn, reason: { kind: 'completed' } });
      add('someone-else/note', { turn });
    }
    writeFileSync(path, `${lines.join('\n')}\n`);
    const size = statSync(path).size;
    const reads: { asked: number; got: number }[] = [];
    const io = faultIo({ onRead: (asked, got) => reads.push({ asked, got }) });

    const store = await openJsonlStore(path, { io });

    expect(store.initialEvents).toHaveLength(200_000);
    expect(store.repairs).toEqual([]);
    // Every byte came through bounded reads of the store's own I/O; none was larger than one chunk.
    expect(reads.reduce((sum, read) => sum + read.got, 0)).toBe(size);
    expect(Math.max(...reads.map((read) => read.asked))).toBe(READ_CHUNK_BYTES);
    expect(reads.length).toBeGreaterThanOrEqual(Math.ceil(size / READ_CHUNK_BYTES));
    await store.close();
    // 200,000 events are built, written and streamed back: several seconds of CPU on a loaded machine.
  }, 60_000);

  it('D05 a line over maxLineBytes is a load error naming the line and the limit', async () => {
    const big = lineOf({ ...logOf(um('x'.repeat(5000)))[0]!, seq: 1 });
    const path = writeSession(`${lineOf(logOf(ts(1))[0]!)}\n${big}\n`);
    const error = await rejection(openJsonlStore(path, { maxLineBytes: 4096 }));
    expect(error).toMatchObject({ name: 'SessionLoadError', code: 'LINE_TOO_LONG', line: 3 });
    expect(error.message).toContain('line 3: longer than maxLineBytes (4096 bytes)');
    await expect(readJsonlLog(path, { maxLineBytes: 4096 })).rejects.toMatchObject({ code: 'LINE_TOO_LONG' });
    // With the default limit (16 MiB) it loads (its open turn closed in memory).
    expect((await readJsonlLog(path)).events.map((event) => event.type)).toEqual([
      'turn/start',
      'user/message',
      'turn/end',
    ]);
  });

  it('D05 the writer never produces a line the loader refuses: the log refuses the append', async () => {
    const path = freshPath();
    const store = await createJsonlStore(path, { maxLineBytes: 4096 });
    const log = createSessionLog({ store });
    log.appendCore('turn/start', userTurn);
    expect(() =>
      log.appendCore('user/message', {
        content: [{ type: 'text', text: 'x'.repeat(5000) }],
        source: { kind: 'user' },
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'LINE_TOO_LONG',
        message: expect.stringContaining('maxLineBytes (4096)'),
      }),
    );
    // Not a store failure: the session goes on.
    expect(log.storeFailure).toBeUndefined();
    log.appendCore('turn/end', { turn: 1, reason: { kind: 'completed' } });
    await store.close();
    expect((await readJsonlLog(path, { maxLineBytes: 4096 })).events).toHaveLength(2);
  });
});

describe('D07 read-only files and I/O failures', () => {
  it('D07 a read-only session file that needs repair is refused with a clear error and left unchanged', async () => {
    const events = logOf(ts(1), um('go'), ss(1, 1));
    const path = writeSession(`${events.map(lineOf).join('\n')}\n`);
    chmodSync(path, 0o444);
    const original = readFileSync(path);
    const error = await rejection(openJsonlStore(path));
    expect(error).toBeInstanceOf(SessionLoadError);
    expect(error).toMatchObject({ code: 'READ_ONLY' });
    expect(error.message).toBe(
      `Session file ${path} needs repair but is read-only (mode 0444); make it writable (chmod u+w ${path}) to continue it, or read it without changes with readJsonlLog / seamchart log`,
    );
    expect(readFileSync(path).equals(original)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o444);
    expect(existsSync(`${path}.bak`)).toBe(false);
    expect(existsSync(`${path}.lock`)).toBe(false);
    // Reading it is fine, and repairs in memory only.
    expect((await readJsonlLog(path)).repairs).toEqual([
      'step/end (turn 1, step 1): closed the open step',
      'turn/end (turn 1): closed the open turn as interrupted',
    ]);
  });

  it('D07 a failing read, a missing file and a directory are SessionLoadErrors with a code', async () => {
    const path = writeSession(`${lineOf(logOf(ts(1))[0]!)}\n`);
    const failing = await rejection(openJsonlStore(path, { io: faultIo({ failRead: 'EIO' }) }));
    expect(failing).toBeInstanceOf(SessionLoadError);
    expect(failing).toMatchObject({ code: 'READ_FAILED', cause: { code: 'EIO' } });
    expect(existsSync(`${path}.lock`)).toBe(false);
    await expect(readJsonlLog(join(directory, 'missing.jsonl'))).rejects.toMatchObject({
      name: 'SessionLoadError',
      code: 'NOT_FOUND',
    });
    await expect(openJsonlStore(join(directory, 'missing.jsonl'))).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const folder = join(directory, 'folder.jsonl');
    mkdirSync(folder);
    await expect(readJsonlLog(folder)).rejects.toMatchObject({
      name: 'SessionLoadError',
      code: 'READ_FAILED',
    });
  });

  it('D07 a file the process may not read is PERMISSION_DENIED, and seamchart log exits 2', async () => {
    const shared = mkdtempSync(join(tmpdir(), 'seamchart-perm-'));
    chmodSync(shared, 0o755);
    const path = join(shared, 'private.jsonl');
    writeFileSync(path, `${header()}\n${lineOf(logOf(ts(1))[0]!)}\n`, { mode: 0o600 });
    // As root, the file belongs to nobody and the child runs without the capabilities that bypass file modes
    // (setpriv), so the kernel really refuses while the checkout stays readable (it may sit under a 0700 folder).
    const asRoot = process.getuid?.() === 0;
    if (asRoot) chownSync(path, 65534, 65534);
    else chmodSync(path, 0o000);
    const node = ['--import', 'tsx', '--input-type=module', '-e'];
    const runAs = (code: string) =>
      asRoot
        ? promisify(execFile)(
            'setpriv',
            ['--bounding-set', '-dac_override,-dac_read_search', process.execPath, ...node, code],
            { cwd: root },
          )
        : promisify(execFile)(process.execPath, [...node, code], { cwd: root });
    const { stdout } = await runAs(
      `const m = await import(${JSON.stringify(join(root, 'session/index.ts'))});
       m.readJsonlLog(${JSON.stringify(path)}).then(() => console.log('loaded'), e => console.log(JSON.stringify({ name: e.name, code: e.code })))`,
    );
    expect(JSON.parse(stdout)).toEqual({ name: 'SessionLoadError', code: 'PERMISSION_DENIED' });
    const cli = await runAs(
      `const { main } = await import(${JSON.stringify(join(root, 'cli/main.ts'))});
       process.exitCode = await main(['log', ${JSON.stringify(path)}]);`,
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain(`Cannot open session file ${path}: permission denied`);
    rmSync(shared, { recursive: true, force: true });
  });
});

describe('durable-inbox events in the log', () => {
  it('a log written before the durable inbox (no inbox/* events) loads and checks clean, also at rest', async () => {
    const events = logOf(
      ts(1),
      um(),
      ss(1, 1),
      am(1, 1, ['c1']),
      tc(1, 1, 'c1'),
      tr(1, 1, 'c1'),
      se(1, 1),
      cm(),
      te(1),
    );
    const path = writeSession(`${events.map(lineOf).join('\n')}\n`);
    const { events: loaded, repairs } = await readJsonlLog(path);
    expect(repairs).toEqual([]);
    expect(checkInvariants(loaded, { atRest: true })).toEqual([]);
  });

  it('inbox/accepted may be appended during a session/event dispatch: written at once, announced after', async () => {
    const path = freshPath();
    const store = await createJsonlStore(path);
    const seen: string[] = [];
    const log = createSessionLog({
      store,
      onEvent: (event) => {
        seen.push(`${event.type}:${event.seq}`);
        if (event.type === 'turn/start') {
          log.appendCore('inbox/accepted', {
            id: 'm1',
            content: [{ type: 'text', text: 'hi' }],
            source: { kind: 'user' },
            steering: false,
            wakeup: true,
          });
          // On disk before the dispatch of turn/start is over.
          seen.push(`lines:${readFileSync(path, 'utf8').trimEnd().split('\n').length}`);
        }
      },
    });
    log.appendCore('turn/start', userTurn);
    expect(seen).toEqual(['turn/start:0', 'lines:3', 'inbox/accepted:1']);
    await store.close();
  });
});
