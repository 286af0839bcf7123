// Real worker processes (the built CLI, `seamchart worker`) and a real sending process, for N03–N05 and the bench.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

const root = resolve(import.meta.dirname, '../../..');
export const BIN = join(root, 'dist/cli/bin.js');
const senderFile = join(root, 'test/distributed/children/sender.ts');
const approverFile = join(root, 'test/distributed/children/approver.ts');
const run = promisify(execFile);

/** The fleet's timings: short, so the tests see deaths and resumptions within seconds. */
export const FAST = {
  leaseMs: 1_500,
  deadAfterMs: 1_500,
  heartbeatMs: 250,
  pollingIntervalMs: 50,
} as const;

export interface WorkerProcess {
  readonly executorId: string;
  readonly child: ChildProcess;
  /** Every stderr line so far. */
  readonly lines: string[];
  readonly exited: Promise<number | null>;
}

export interface Fleet {
  readonly folder: string;
  readonly scriptFile: string;
  start(executorId: string, extra?: readonly string[]): Promise<WorkerProcess>;
  readonly workers: WorkerProcess[];
  /** Kills every worker still running (SIGKILL) and removes the folder. */
  close(): Promise<void>;
}

/**
 * A folder with the model script (and files for the tools), and a way to start workers on a database.
 * @param databaseUrl the migrated database
 * @param script the model steps every delivery's agent follows (repeated: a fresh agent starts it again)
 */
export function createFleet(databaseUrl: string, script: readonly unknown[]): Fleet {
  const folder = mkdtempSync(join(tmpdir(), 'seamchart-fleet-'));
  const scriptFile = join(folder, 'script.json');
  writeFileSync(scriptFile, JSON.stringify(script));
  writeFileSync(join(folder, 'a.txt'), 'alpha\n');
  writeFileSync(join(folder, 'b.txt'), 'beta\n');
  const workers: WorkerProcess[] = [];
  return {
    folder,
    scriptFile,
    workers,
    async start(executorId, extra = []) {
      const child = spawn(
        process.execPath,
        [
          BIN,
          'worker',
          '--database-url',
          databaseUrl,
          '--executor-id',
          executorId,
          '--model',
          `scripted:${scriptFile}`,
          '--tools',
          'demo',
          '--cwd',
          folder,
          '--lease-ms',
          String(FAST.leaseMs),
          '--dead-after-ms',
          String(FAST.deadAfterMs),
          '--heartbeat-ms',
          String(FAST.heartbeatMs),
          '--polling-interval-ms',
          String(FAST.pollingIntervalMs),
          ...extra,
        ],
        { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      const lines: string[] = [];
      const exited = new Promise<number | null>((done) =>
        child.once('exit', (code, signal) => done(code ?? (signal === null ? null : -1))),
      );
      const ready = new Promise<void>((done, fail) => {
        createInterface({ input: child.stderr! }).on('line', (line) => {
          lines.push(line);
          if (line.includes('serving the sessions queue')) done();
        });
        void exited.then((code) =>
          fail(new Error(`worker ${executorId} exited (${code}) before serving:\n${lines.join('\n')}`)),
        );
      });
      const worker = { executorId, child, lines, exited };
      workers.push(worker);
      await ready;
      return worker;
    },
    async close() {
      for (const worker of workers)
        if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
      await Promise.all(workers.map((worker) => worker.exited));
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

export interface Sender {
  send(message: { sessionId: string; content: string; id?: string; create?: boolean }): Promise<string>;
  close(): Promise<void>;
}

/** A separate process that enqueues messages (one at a time, in order) and acknowledges each. */
export function startSender(databaseUrl: string): Sender {
  const child = spawn(process.execPath, ['--import', 'tsx', senderFile, databaseUrl], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const pending: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => pending.shift()?.(line));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    send(message) {
      return new Promise<string>((resolveLine) => {
        pending.push(resolveLine);
        child.stdin!.write(`${JSON.stringify(message)}\n`);
      });
    },
    async close() {
      child.stdin!.end();
      await exited;
    },
  };
}

/**
 * A Claude Code settings file (written into `folder`) whose PreToolUse hook asks about a session's Bash calls
 * until the session's stored log holds a suspended turn, then stays silent: one suspension per session,
 * however often a killed worker's turn is run again.
 */
export function askOncePerSessionSettings(folder: string, databaseUrl: string): string {
  const hook = join(folder, 'ask-once.sh');
  writeFileSync(
    hook,
    [
      'sid=$(sed -n \'s/.*"session_id":"\\([^"]*\\)".*/\\1/p\')',
      `asked=$(psql '${databaseUrl}' -tAc "SELECT count(*) FROM seamchart.events WHERE session_id = '$sid' AND event LIKE '%turn/suspended%'")`,
      '[ "$asked" = "0" ] || exit 0',
      'echo \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"a shell command needs a human"}}\'',
      '',
    ].join('\n'),
  );
  const settings = join(folder, 'ask-once.json');
  writeFileSync(
    settings,
    JSON.stringify({
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `sh ${hook}` }] }] },
    }),
  );
  return settings;
}

export interface Approver {
  /** Every stdout line so far ("ANSWERED <session> <request> <outcome>", "ERR …", "DONE"). */
  readonly lines: string[];
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
}

/** A separate process that answers each session's deferred approval (at random) once it appears. */
export function startApprover(databaseUrl: string, sessions: readonly string[]): Approver {
  const child = spawn(process.execPath, ['--import', 'tsx', approverFile, databaseUrl, ...sessions], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { lines, child, exited };
}

/** Runs `seamchart <args>` to its end. */
export async function cli(
  args: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { cwd: root, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** Waits until `predicate` holds, checking every 100 ms, or fails after `timeoutMs`. */
export async function eventually(
  what: string,
  predicate: () => Promise<boolean> | boolean,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}
