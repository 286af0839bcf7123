import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { connectQueue, migrate } from '../index.js';

/** One figure of the distributed mode, as the bench's rows take it. */
export interface DistributedRow {
  name: string;
  label: string;
  unit: string;
  median: number;
}

/** The settings every figure is measured with (docs/distributed.md quotes them). */
export const DISTRIBUTED_SETTINGS = {
  sessions: 100,
  pollingIntervalMs: 50,
  leaseMs: 1_500,
  deadAfterMs: 1_500,
  heartbeatMs: 250,
  concurrency: 8,
} as const;

const SERVER = process.env.SEAMCHART_BENCH_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';
const bin = path.join(import.meta.dirname, '..', 'cli', 'bin.js');

async function withDatabase<T>(run: (url: string) => Promise<T>): Promise<T> {
  const name = `seamchart_bench_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  try {
    await migrate({ databaseUrl: url.toString() });
    return await run(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

interface Worker {
  readonly child: ChildProcess;
  readonly lines: string[];
  readonly exited: Promise<void>;
}

function startWorker(url: string, folder: string, executorId: string): Promise<Worker> {
  const s = DISTRIBUTED_SETTINGS;
  const child = spawn(
    process.execPath,
    [
      bin,
      'worker',
      '--database-url',
      url,
      '--executor-id',
      executorId,
      '--model',
      `scripted:${path.join(folder, 'script.json')}`,
      '--tools',
      'demo',
      '--cwd',
      folder,
      '--concurrency',
      String(s.concurrency),
      '--polling-interval-ms',
      String(s.pollingIntervalMs),
      '--lease-ms',
      String(s.leaseMs),
      '--dead-after-ms',
      String(s.deadAfterMs),
      '--heartbeat-ms',
      String(s.heartbeatMs),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const lines: string[] = [];
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stderr! }).on('line', (line) => {
      lines.push(line);
      if (line.includes('serving the sessions queue')) resolve({ child, lines, exited });
    });
    void exited.then(() =>
      reject(new Error(`worker ${executorId} exited before serving: ${lines.join('\n')}`)),
    );
  });
}

async function stopAll(workers: readonly Worker[]): Promise<void> {
  for (const worker of workers) worker.child.kill('SIGKILL');
  await Promise.all(workers.map((worker) => worker.exited));
}

async function until(predicate: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`bench: timed out after ${timeoutMs} ms`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** Turns per second end to end (send → every turn ended) with `workerCount` workers over 100 sessions. */
async function throughput(workerCount: number): Promise<{ turnsPerSecond: number; latencies: number[] }> {
  return withDatabase(async (url) => {
    const folder = mkdtempSync(path.join(tmpdir(), 'seamchart-bench-dist-'));
    writeFileSync(path.join(folder, 'script.json'), JSON.stringify([{ text: 'ok' }, { text: 'ok' }]));
    const workers = await Promise.all(
      Array.from({ length: workerCount }, (_, i) => startWorker(url, folder, `bench-w${i + 1}`)),
    );
    const queue = await connectQueue({ databaseUrl: url });
    const db = new pg.Pool({ connectionString: url, max: 2 });
    try {
      const sessions = Array.from({ length: DISTRIBUTED_SETTINGS.sessions }, (_, i) => `bench-s${i}`);
      for (const sessionId of sessions) {
        await db.query('INSERT INTO seamchart.sessions (id, cwd) VALUES ($1, $2)', [sessionId, folder]);
      }
      const started = performance.now();
      for (const sessionId of sessions) {
        await queue.sendMessage({ sessionId, content: 'hello', id: 'bench-1' });
      }
      await until(
        async () =>
          Number(
            (await db.query("SELECT count(*) FROM seamchart.events WHERE type = 'turn/end'")).rows[0].count,
          ) === sessions.length,
        120_000,
      );
      const seconds = (performance.now() - started) / 1000;
      // Latency on a fleet with nothing queued: one message at a time, send acknowledged → its turn/start.
      const latencies: number[] = [];
      for (const sessionId of sessions.slice(0, 30)) {
        await queue.sendMessage({ sessionId, content: 'again', id: 'bench-2' });
        const sent = Date.now();
        let startedAt = Number.NaN;
        await until(async () => {
          const found = await db.query<{ event: string }>(
            "SELECT event FROM seamchart.events WHERE session_id = $1 AND type = 'turn/start' ORDER BY seq DESC LIMIT 1",
            [sessionId],
          );
          const row = found.rows[0];
          if (row === undefined) return false;
          const event = JSON.parse(row.event) as { data: { trigger: { itemId?: string } }; time: string };
          if (event.data.trigger.itemId !== 'bench-2') return false;
          startedAt = Date.parse(event.time);
          return true;
        }, 30_000);
        latencies.push(startedAt - sent);
        await until(async () => {
          const ended = await db.query(
            "SELECT count(*) FROM seamchart.events WHERE session_id = $1 AND type = 'turn/end'",
            [sessionId],
          );
          return Number(ended.rows[0].count) === 2;
        }, 30_000);
      }
      return { turnsPerSecond: sessions.length / seconds, latencies };
    } finally {
      await queue.close();
      await db.end();
      await stopAll(workers);
      rmSync(folder, { recursive: true, force: true });
    }
  });
}

/** Time from SIGKILL of a worker mid-tool-body to the turn's session reopened by another worker. */
async function killToResume(): Promise<number> {
  return withDatabase(async (url) => {
    const folder = mkdtempSync(path.join(tmpdir(), 'seamchart-bench-dist-'));
    writeFileSync(
      path.join(folder, 'script.json'),
      JSON.stringify([
        { toolCalls: [{ id: 'sleep', name: 'Bash', arguments: { command: 'sleep 30' } }] },
        { text: 'ok' },
      ]),
    );
    const victim = await startWorker(url, folder, 'bench-victim');
    const survivor = await startWorker(url, folder, 'bench-survivor');
    const queue = await connectQueue({ databaseUrl: url });
    const db = new pg.Pool({ connectionString: url, max: 2 });
    try {
      // Sessions until one lands on the victim.
      let sessionId = '';
      for (let i = 0; sessionId === ''; i++) {
        const candidate = `bench-kill-${i}`;
        await queue.sendMessage({ sessionId: candidate, content: 'sleep', create: true });
        await until(
          async () =>
            (
              await db.query("SELECT 1 FROM seamchart.events WHERE session_id = $1 AND type = 'tool/call'", [
                candidate,
              ])
            ).rowCount === 1,
          30_000,
        );
        const holder = await db.query('SELECT lease_holder FROM seamchart.sessions WHERE id = $1', [
          candidate,
        ]);
        if (holder.rows[0]?.lease_holder === 'bench-victim') sessionId = candidate;
      }
      const killed = Date.now();
      victim.child.kill('SIGKILL');
      await until(
        async () =>
          (await db.query('SELECT lease_holder FROM seamchart.sessions WHERE id = $1', [sessionId])).rows[0]
            ?.lease_holder === 'bench-survivor',
        60_000,
      );
      return Date.now() - killed;
    } finally {
      await queue.close();
      await db.end();
      await stopAll([victim, survivor]);
      rmSync(folder, { recursive: true, force: true });
    }
  });
}

/**
 * The distributed rows: turns/s with 1, 2 and 4 workers over 100 sessions (a scripted text turn each),
 * send → turn/start p50 and p99 (2 workers), and kill-to-resume (median of `runs`).
 * @param runs how many kill-to-resume measurements
 */
export async function benchDistributed(runs: number): Promise<DistributedRow[]> {
  const rows: DistributedRow[] = [];
  let latencies: number[] = [];
  for (const workers of [1, 2, 4]) {
    const result = await throughput(workers);
    if (workers === 2) latencies = result.latencies;
    rows.push({
      name: `distributed.turnsPerSecond.${workers}`,
      label: `distributed: turns/s end to end, ${workers} worker${workers === 1 ? '' : 's'}, 100 sessions`,
      unit: 'turn/s',
      median: result.turnsPerSecond,
    });
  }
  rows.push(
    {
      name: 'distributed.sendToTurnStart.p50',
      label: 'distributed: send → turn/start p50 (2 idle workers, 30 sends)',
      unit: 'ms',
      median: percentile(latencies, 50),
    },
    {
      name: 'distributed.sendToTurnStart.p99',
      label: 'distributed: send → turn/start p99 (2 idle workers, 30 sends)',
      unit: 'ms',
      median: percentile(latencies, 99),
    },
  );
  const kills: number[] = [];
  for (let run = 0; run < runs; run++) kills.push(await killToResume());
  rows.push({
    name: 'distributed.killToResume',
    label: `distributed: SIGKILL mid-body → session reopened elsewhere (median of ${runs})`,
    unit: 'ms',
    median: percentile(kills, 50),
  });
  return rows;
}
