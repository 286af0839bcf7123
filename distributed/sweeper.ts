import { hostname } from 'node:os';
import type { Pool, PoolClient } from 'pg';
import { withPoolClient } from '../session/index.js';
import { SESSIONS_QUEUE } from './names.js';

/** What the sweeper needs of DBOS: list a dead executor's pending workflows, resume one on a queue. */
export interface WorkflowControl {
  listPending(executorId: string): Promise<readonly string[]>;
  resume(workflowId: string, queueName: string): Promise<void>;
}

export interface HeartbeatOptions {
  readonly pool: Pool;
  readonly schema: string;
  readonly executorId: string;
  readonly applicationVersion: string | undefined;
  /** How often this worker beats and looks for dead ones (ms). */
  readonly heartbeatMs: number;
  /** A worker whose last beat is older than this is dead (ms). */
  readonly deadAfterMs: number;
  readonly workflows: WorkflowControl;
  readonly log: (line: string) => void;
}

/** A worker's heartbeat and its share of the sweeper; `stop()` ends both. */
export interface Heartbeat {
  /** Marks this worker dead at once (a graceful exit whose pending workflows others should resume now). */
  stop(options: { markDead: boolean }): Promise<void>;
}

/**
 * Starts beating (an upsert of this worker's row every `heartbeatMs`) and sweeping: any worker that sees
 * another's beat older than `deadAfterMs` resumes that executor's pending workflows on the sessions queue
 * (never without the queue name, which would lose the per-session order). One sweeper acts at a time
 * (an advisory lock); the dead worker's row is removed once its workflows are resumed.
 * @param options the pool, this executor, the timings and the DBOS calls
 */
export async function startHeartbeat(options: HeartbeatOptions): Promise<Heartbeat> {
  const { pool, schema, executorId } = options;
  await beat(options);
  let running: Promise<void> = Promise.resolve();
  const tick = (): void => {
    running = running.then(async () => {
      try {
        await beat(options);
        await sweep(options);
      } catch (error) {
        options.log(`heartbeat: ${(error as Error).message}`);
      }
    });
  };
  const timer = setInterval(tick, options.heartbeatMs);
  return {
    async stop({ markDead }) {
      clearInterval(timer);
      await running;
      if (markDead) {
        await pool.query(`UPDATE ${schema}.workers SET heartbeat_at = 'epoch' WHERE executor_id = $1`, [
          executorId,
        ]);
      }
    },
  };
}

async function beat(options: HeartbeatOptions): Promise<void> {
  await options.pool.query(
    `INSERT INTO ${options.schema}.workers (executor_id, pid, host, application_version)
       VALUES ($1, $2, $3, $4)
     ON CONFLICT (executor_id) DO UPDATE
       SET heartbeat_at = now(), pid = EXCLUDED.pid, host = EXCLUDED.host`,
    [options.executorId, process.pid, hostname(), options.applicationVersion ?? null],
  );
}

/**
 * How long the sweeper's connection may sit idle while it holds the lock: a sweeper paused mid-sweep (SIGSTOP,
 * a frozen VM) loses its connection, and with it the lock, so it cannot stop the fleet's recovery.
 */
function lockIdleLimitMs(options: HeartbeatOptions): number {
  return Math.max(options.deadAfterMs * 2, 10_000);
}

async function sweep(options: HeartbeatOptions): Promise<void> {
  const { pool } = options;
  // A paused sweeper's connection is ended by the server (its idle limit) and destroyed here; so is one whose
  // sweep threw, since it may still hold the lock or the setting.
  await withPoolClient(
    pool,
    async (client) => {
      await client.query(`SET idle_session_timeout = ${lockIdleLimitMs(options)}`);
      const locked = await client.query<{ locked: boolean }>(
        "SELECT pg_try_advisory_lock(hashtext('seamchart sweeper'), 0) AS locked",
      );
      if (locked.rows[0]?.locked === true) {
        try {
          await resumeDeadWorkers(client, options);
        } finally {
          await client.query("SELECT pg_advisory_unlock(hashtext('seamchart sweeper'), 0)");
        }
      }
      // A healthy connection goes back without the idle limit.
      await client.query('RESET idle_session_timeout');
    },
    { discardOnThrow: true },
  );
}

/** Resumes the pending workflows of every worker whose beat is older than `deadAfterMs`, then forgets it. */
async function resumeDeadWorkers(client: PoolClient, options: HeartbeatOptions): Promise<void> {
  const { schema } = options;
  // Still the one sweeper: a paused sweeper whose connection the server ended must stop resuming.
  const stillHolding = () => client.query('SELECT 1');
  const dead = await client.query<{ executor_id: string; heartbeat_at: Date }>(
    `SELECT executor_id, heartbeat_at FROM ${schema}.workers
      WHERE heartbeat_at < now() - $1 * interval '1 millisecond' AND executor_id <> $2`,
    [options.deadAfterMs, options.executorId],
  );
  for (const row of dead.rows) {
    const pending = await options.workflows.listPending(row.executor_id);
    for (const workflowId of pending) {
      await stillHolding();
      await options.workflows.resume(workflowId, SESSIONS_QUEUE);
    }
    // Only while still dead: a worker that beat again meanwhile (a paused one, continued) keeps its row.
    await client.query(
      `DELETE FROM ${schema}.workers
        WHERE executor_id = $1 AND heartbeat_at < now() - $2 * interval '1 millisecond'`,
      [row.executor_id, options.deadAfterMs],
    );
    options.log(
      `sweeper: worker ${row.executor_id} is dead (no heartbeat since ${row.heartbeat_at.toISOString()}); ` +
        `resumed ${pending.length} pending workflow${pending.length === 1 ? '' : 's'} on ${SESSIONS_QUEUE}` +
        (pending.length === 0 ? '' : ` (${pending.join(', ')})`),
    );
  }
}
