// storage.md / cli.md: `seamchart log` reads a session another process is writing — never locking, never
// repairing — and says that its tail is being written.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkInvariants, readJsonlLog } from '../../session/index.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'dist/cli/bin.js');
const writer = path.join(import.meta.dirname, 'children/liveWriter.ts');

let dir: string;
let child: ChildProcess | undefined;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'seamchart-live-log-'));
});
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await new Promise((done) => child?.once('exit', done));
  }
  child = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the writer and returns a function resolving its next stdout line. */
function startWriter(mode: 'agent' | 'partial', session: string): () => Promise<string> {
  child = spawn(process.execPath, ['--import', 'tsx', writer, mode, session], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const queue: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else queue.push(line);
  });
  return () =>
    new Promise((resolve, reject) => {
      const queued = queue.shift();
      if (queued !== undefined) resolve(queued);
      else {
        waiting.push(resolve);
        child?.once('exit', (code) => reject(new Error(`the writer exited (${code}) early`)));
      }
    });
}

/** `seamchart log` in its own process, as a person runs it next to a live session. */
async function seamchartLog(...args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run(process.execPath, [bin, 'log', ...args], { cwd: root, timeout: 30_000 });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '' };
  }
}

/** The session's directory entries and bytes: a reader must change neither. */
function snapshot(session: string) {
  return {
    entries: readdirSync(dir).sort(),
    bytes: readFileSync(session),
    lock: readFileSync(`${session}.lock`, 'utf8'),
    mtime: statSync(session).mtimeMs,
  };
}

describe('seamchart log on a live session', () => {
  it('reads an agent’s session mid-turn without locking or repairing it; the writer finishes the turn', async () => {
    const session = path.join(dir, 'live.jsonl');
    const next = startWriter('agent', session);
    expect(await next()).toBe('READY');
    const before = snapshot(session);
    const shown = await seamchartLog(session, '--check');
    expect(shown.code).toBe(0);
    const lines = shown.stdout.trim().split('\n');
    expect(lines).toContain(
      `live session: process ${child!.pid} on ${hostname()} is writing it (since ${JSON.parse(before.lock).since}); its tail is being written, nothing was repaired`,
    );
    expect(shown.stdout).toMatch(/tool\/call|● wait/);
    expect(shown.stdout).not.toMatch(/repaired in memory|interrupted/);
    expect(lines.at(-1)).toBe('invariants: ok');
    // Read-only: no lock taken, no backup, not a byte changed.
    expect(snapshot(session)).toEqual(before);
    expect(existsSync(`${session}.bak`)).toBe(false);

    // The writer was not disturbed: it completes the turn in the same file.
    child!.stdin!.write('go\n');
    expect(await next()).toBe('DONE');
    const done = await readJsonlLog(session);
    expect(done.writer).toBeUndefined();
    expect(done.repairs).toEqual([]);
    expect(checkInvariants(done.events)).toEqual([]);
    const ends = done.events.filter((event) => event.type === 'turn/end').map((event) => event.data);
    expect(ends).toMatchObject([{ turn: 1, reason: { kind: 'completed' } }]);
    expect(done.events.filter((event) => event.type === 'tool/result')).toHaveLength(1);
  }, 60_000);

  it('shows half a line as being written, not as a torn line to drop', async () => {
    const session = path.join(dir, 'partial.jsonl');
    const next = startWriter('partial', session);
    expect(await next()).toBe('READY');
    const before = snapshot(session);
    const shown = await seamchartLog(session, '--check');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^line 3: being written \(\d+ bytes so far, not an event yet\)$/m);
    expect(shown.stdout).toMatch(/its tail is being written, nothing was repaired/);
    expect(shown.stdout).not.toMatch(/dropped|repaired in memory/);
    expect(snapshot(session)).toEqual(before);

    child!.stdin!.write('go\n');
    expect(await next()).toBe('DONE');
    // The line it was writing arrived whole: the file ends with a completed turn.
    const done = await readJsonlLog(session);
    expect(done.repairs).toEqual([]);
    expect(done.events.map((event) => event.type)).toEqual(['turn/start', 'turn/end']);
  }, 60_000);
});
