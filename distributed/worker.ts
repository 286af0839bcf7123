import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Pool } from 'pg';
import { type Agent, type AgentOptions, createAgent } from '../machines/index.js';
import {
  ApprovalError,
  DEFAULT_SESSION_SCHEMA,
  openPostgresStore,
  type PostgresStore,
  SessionLockedError,
} from '../session/index.js';
import { requireMigrated } from './database.js';
import {
  DBOS_APPLICATION,
  DELIVER_WORKFLOW,
  type Delivery,
  type DeliveryOutcome,
  SESSIONS_QUEUE,
} from './names.js';
import { type Heartbeat, startHeartbeat } from './sweeper.js';

/** The agent a worker builds for a session: everything but the store, which the worker opens. */
export type WorkerAgentOptions = Omit<AgentOptions, 'store' | 'id' | 'resumePending'>;

export interface WorkerOptions {
  /** The PostgreSQL database of the sessions and of DBOS (migrated with `seamchart db migrate`). */
  databaseUrl: string;
  /** Builds the agent for a session (model, tools, seams…); a throw fails that delivery, the session untouched. */
  agent: (sessionId: string) => WorkerAgentOptions | Promise<WorkerAgentOptions>;
  /** Sessions this worker runs at once (default 8). */
  concurrency?: number;
  /** This worker's executor id (default `<host>-<pid>-<random>`): unique in the fleet. */
  executorId?: string;
  /** The DBOS application version this worker runs (pin one for rolling deploys); DBOS's default when absent. */
  applicationVersion?: string;
  /** The schema of the session tables (`seamchart`). */
  schema?: string;
  /** A session lease's length (ms, default 5,000), renewed every third of it. */
  leaseMs?: number;
  /** A worker whose heartbeat is older than this is dead and its workflows are resumed (ms, default 5,000). */
  deadAfterMs?: number;
  /** How often a worker beats and sweeps (ms, default 1,000). */
  heartbeatMs?: number;
  /** DBOS's queue polling interval (ms, default 200). */
  pollingIntervalMs?: number;
  /** Where the worker reports (default: stderr lines). */
  log?: (line: string) => void;
}

/** A running worker: one per process (DBOS is a process-wide runtime). */
export interface Worker {
  readonly executorId: string;
  /**
   * Stops taking work, lets running sessions finish within `graceMs` (default 10,000), then disposes what
   * still runs (never cancels: turns end `disposed`, unrecorded messages stay queued in the log), releases
   * the leases and marks this worker dead so another resumes its unfinished deliveries at once.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
}

interface LiveSession {
  readonly agent: Agent;
  readonly done: Promise<void>;
  disposedByStop: boolean;
}

/**
 * Joins the worker pool: runs the deliveries of the sessions queue (one runner per session at a time, in
 * send order), heartbeats, and resumes dead workers' deliveries.
 * @param options the database, the agent factory and the fleet settings
 * @example
 * const worker = await createWorker({ databaseUrl, agent: () => ({ model, tools, seams }) });
 * process.once('SIGTERM', () => worker.stop().then(() => process.exit(143)));
 */
export async function createWorker(options: WorkerOptions): Promise<Worker> {
  const settings = resolveWorkerOptions(options);
  const { DBOS } = await import('@dbos-inc/dbos-sdk');
  const { default: pg } = await import('pg');
  if (DBOS.isInitialized()) {
    throw new Error(
      'createWorker(): a worker already runs in this process (DBOS is one runtime per process)',
    );
  }
  const pool: Pool = new pg.Pool({
    connectionString: settings.databaseUrl,
    max: settings.concurrency * 2 + 4,
  });
  pool.on('error', (error) => settings.log(`database: ${error.message}`));
  try {
    await requireMigrated(pool, settings.schema);
  } catch (error) {
    await pool.end();
    throw error;
  }
  const live = new Set<LiveSession>();
  let stopping = false;

  const openLeased = async (sessionId: string): Promise<PostgresStore> => {
    // A live lease is a zombie's or a paused worker's: it expires, or its holder finishes and releases it.
    for (;;) {
      try {
        return await openPostgresStore({
          pool,
          sessionId,
          schema: settings.schema,
          leaseMs: settings.leaseMs,
          holder: settings.executorId,
        });
      } catch (error) {
        if (!(error instanceof SessionLockedError) || stopping) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.max(50, settings.leaseMs / 5)));
      }
    }
  };

  const serve = async (delivery: Delivery): Promise<DeliveryOutcome> => {
    const { sessionId } = delivery;
    if (stopping) return stayPending();
    const what = `session ${sessionId}: ${describeDelivery(delivery)}`;
    settings.log(`${new Date().toISOString()} ${what} started`);
    const agentOptions = await settings.agent(sessionId);
    const store = await openLeased(sessionId);
    const agent = createAgent({ ...agentOptions, store, resumePending: 'run' });
    let finish: () => void = () => {};
    const entry: LiveSession = {
      agent,
      done: new Promise<void>((resolve) => {
        finish = resolve;
      }),
      disposedByStop: false,
    };
    live.add(entry);
    try {
      const approval = await deliver(agent, delivery);
      await agent.whenIdle();
      // Disposed by a stop: the delivery stays pending and another worker resumes it (nothing is lost).
      if (entry.disposedByStop) return stayPending();
      const failure = store.failure;
      if (agent.status === 'failed' || failure !== undefined) {
        throw new Error(
          `session ${sessionId}: the store failed (${failure?.code ?? 'unknown'}), the delivery stopped: ${failure?.message ?? 'unknown'}`,
        );
      }
      const turns = agent.log.events.filter((event) => event.type === 'turn/end').length;
      const status = agent.status;
      await agent.dispose();
      settings.log(`${new Date().toISOString()} ${what} finished (${status}, ${turns} turns)`);
      return {
        sessionId,
        status,
        executorId: settings.executorId,
        turns,
        ...(approval === undefined ? {} : { approval }),
      };
    } catch (error) {
      settings.log(`${new Date().toISOString()} ${what} failed: ${(error as Error).message}`);
      await agent.dispose().catch(() => undefined);
      throw error;
    } finally {
      live.delete(entry);
      finish();
    }
  };

  const workflow = DBOS.registerWorkflow(
    async (delivery: Delivery) =>
      DBOS.runStep(() => serve(delivery), { name: 'serve', retriesAllowed: false }),
    { name: DELIVER_WORKFLOW },
  );
  void workflow;
  DBOS.setConfig({
    name: DBOS_APPLICATION,
    systemDatabaseUrl: settings.databaseUrl,
    executorID: settings.executorId,
    ...(settings.applicationVersion === undefined ? {} : { applicationVersion: settings.applicationVersion }),
    runMigrations: false,
    logger: dbosLogger(settings.log),
  });
  let heartbeat: Heartbeat | undefined;
  try {
    await DBOS.launch();
    await DBOS.registerQueue(SESSIONS_QUEUE, {
      partitionConcurrency: 1,
      workerConcurrency: settings.concurrency,
      minPollingIntervalMs: settings.pollingIntervalMs,
      onConflict: 'always_update',
    });
    heartbeat = await startHeartbeat({
      pool,
      schema: settings.schema,
      executorId: settings.executorId,
      applicationVersion: settings.applicationVersion,
      heartbeatMs: settings.heartbeatMs,
      deadAfterMs: settings.deadAfterMs,
      log: settings.log,
      workflows: {
        async listPending(executorId) {
          const pending = await DBOS.listWorkflows({
            status: 'PENDING',
            executorId,
            queueName: SESSIONS_QUEUE,
            loadInput: false,
            loadOutput: false,
          });
          return pending.map((workflowStatus) => workflowStatus.workflowID);
        },
        async resume(workflowId, queueName) {
          await DBOS.resumeWorkflow(workflowId, { queueName });
        },
      },
    });
  } catch (error) {
    await DBOS.shutdown().catch(() => undefined);
    await pool.end().catch(() => undefined);
    throw error;
  }
  const running = heartbeat;
  let stopped: Promise<void> | undefined;
  return Object.freeze({
    executorId: settings.executorId,
    stop({ graceMs = 10_000 }: { graceMs?: number } = {}) {
      stopped ??= (async () => {
        stopping = true;
        const drained = Promise.all([...live].map((entry) => entry.done));
        await Promise.race([drained, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
        await Promise.all(
          [...live].map(async (entry) => {
            entry.disposedByStop = true;
            await entry.agent.dispose();
          }),
        );
        await running.stop({ markDead: true });
        await DBOS.shutdown();
        await pool.end();
      })();
      return stopped;
    },
  });
}

/** Hands a delivery to the session's agent: a message is followed up; an answer is recorded (it resumes the turn). */
async function deliver(agent: Agent, delivery: Delivery): Promise<DeliveryOutcome['approval']> {
  if (delivery.kind === 'message') {
    agent.followup(delivery.content, { id: delivery.id });
    return undefined;
  }
  // A suspended session's agent starts suspended (or resumes at once when every request is answered already).
  await agent.whenIdle();
  const { requestId, outcome, reason, by, argsHash } = delivery;
  try {
    const resolution = await agent.resolveApproval(requestId, {
      outcome,
      ...(reason === undefined ? {} : { reason }),
      ...(by === undefined ? {} : { by }),
      ...(argsHash === undefined ? {} : { argsHash }),
    });
    return { resolution };
  } catch (error) {
    // A conflict found at run time is the answer's result, not the workflow's failure: the caller reports it.
    if (error instanceof ApprovalError) return { refused: { code: error.code, message: error.message } };
    throw error;
  }
}

function describeDelivery(delivery: Delivery): string {
  return delivery.kind === 'message'
    ? `message ${delivery.id}`
    : `approval answer ${delivery.outcome} to ${delivery.requestId}`;
}

// The step never ends: its workflow stays PENDING for the sweeper to resume on another worker.
function stayPending(): Promise<never> {
  return new Promise<never>(() => {});
}

function dbosLogger(log: (line: string) => void) {
  const text = (entry: unknown) => (entry instanceof Error ? entry.message : String(entry));
  return {
    info: () => {},
    debug: () => {},
    warn: (entry: unknown) => log(`dbos: ${text(entry)}`),
    error: (entry: unknown) => log(`dbos: ${text(entry)}`),
  };
}

interface ResolvedWorkerOptions {
  readonly databaseUrl: string;
  readonly agent: WorkerOptions['agent'];
  readonly concurrency: number;
  readonly executorId: string;
  readonly applicationVersion: string | undefined;
  readonly schema: string;
  readonly leaseMs: number;
  readonly deadAfterMs: number;
  readonly heartbeatMs: number;
  readonly pollingIntervalMs: number;
  readonly log: (line: string) => void;
}

function positiveInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new TypeError(`Expected \`${name}\` to be a positive integer, got ${JSON.stringify(value)}`);
  }
  return value;
}

function resolveWorkerOptions(options: WorkerOptions): ResolvedWorkerOptions {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('Expected createWorker() options { databaseUrl, agent }');
  }
  if (typeof options.databaseUrl !== 'string' || options.databaseUrl.length === 0) {
    throw new TypeError('Expected `databaseUrl` to be a PostgreSQL connection string');
  }
  if (typeof options.agent !== 'function') {
    throw new TypeError('Expected `agent` to be a function (sessionId) => agent options');
  }
  return {
    databaseUrl: options.databaseUrl,
    agent: options.agent,
    concurrency: positiveInteger('concurrency', options.concurrency, 8),
    executorId: options.executorId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`,
    applicationVersion: options.applicationVersion,
    schema: options.schema ?? DEFAULT_SESSION_SCHEMA,
    leaseMs: positiveInteger('leaseMs', options.leaseMs, 5_000),
    deadAfterMs: positiveInteger('deadAfterMs', options.deadAfterMs, 5_000),
    heartbeatMs: positiveInteger('heartbeatMs', options.heartbeatMs, 1_000),
    pollingIntervalMs: positiveInteger('pollingIntervalMs', options.pollingIntervalMs, 200),
    log: options.log ?? ((line) => process.stderr.write(`${line}\n`)),
  };
}
