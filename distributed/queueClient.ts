import { randomUUID } from 'node:crypto';
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import type { Pool } from 'pg';
import { DEFAULT_SESSION_SCHEMA } from '../session/index.js';
import {
  listSessionApprovals,
  type QueuedApprovalResult,
  type ResolveQueuedApprovalInput,
  resolveQueuedApproval,
  type SessionApprovals,
} from './approvals.js';
import { requireMigrated } from './database.js';
import { DistributedError } from './errors.js';
import {
  checkMessageId,
  DBOS_APPLICATION,
  DELIVER_WORKFLOW,
  type Delivery,
  messageWorkflowId,
  SESSIONS_QUEUE,
} from './names.js';

export interface QueueConnectionOptions {
  /** The PostgreSQL database of the sessions and of DBOS. */
  databaseUrl: string;
  /** The schema of the session tables (`seamchart`). */
  schema?: string;
}

export interface SendMessageInput {
  sessionId: string;
  /** The message text. */
  content: string;
  /** The caller's message id (1–128 of `[A-Za-z0-9._:-]`); a random UUID when absent. */
  id?: string;
  /** Create the session (refused with `SESSION_EXISTS` when it exists); otherwise it must exist. */
  create?: boolean;
}

/** A connection to the sessions queue for senders (web servers, the CLI): `close()` when done. */
export interface QueueConnection {
  /**
   * Enqueues a message on its session's partition and resolves with its id once the enqueue is durable.
   * The workflow id is `<sessionId>/<id>`: the same id twice to one session delivers once.
   */
  sendMessage(input: SendMessageInput): Promise<string>;
  /** A stored session's pending deferred approvals, read only. */
  listApprovals(sessionId: string): Promise<SessionApprovals>;
  /**
   * Answers a deferred approval through the queue: checked against the stored log first (an `ApprovalError`
   * enqueues nothing), then recorded by a worker, which resumes the turn once no request is pending; resolves
   * when the session is idle or suspended again.
   */
  resolveApproval(input: ResolveQueuedApprovalInput): Promise<QueuedApprovalResult>;
  /** The underlying DBOS client and pool, for tools. */
  readonly dbos: DBOSClient;
  readonly pool: Pool;
  readonly schema: string;
  close(): Promise<void>;
}

/**
 * Connects a sender to the sessions queue (PostgreSQL and DBOS's client), after checking the database is migrated.
 * @param options the database and schema
 * @example
 * const queue = await connectQueue({ databaseUrl });
 * const id = await queue.sendMessage({ sessionId: 's1', content: 'hello' });
 * await queue.close();
 */
export async function connectQueue(options: QueueConnectionOptions): Promise<QueueConnection> {
  if (options === null || typeof options !== 'object' || typeof options.databaseUrl !== 'string') {
    throw new TypeError('Expected { databaseUrl } with a PostgreSQL connection string');
  }
  const schema = options.schema ?? DEFAULT_SESSION_SCHEMA;
  const { default: pg } = await import('pg');
  const { DBOSClient } = await import('@dbos-inc/dbos-sdk');
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 4 });
  pool.on('error', () => {});
  let dbos: DBOSClient;
  try {
    await requireMigrated(pool, schema);
    dbos = await DBOSClient.create({
      systemDatabaseUrl: options.databaseUrl,
      applicationName: DBOS_APPLICATION,
      logger: { info() {}, debug() {}, warn() {}, error() {} },
    });
  } catch (error) {
    await pool.end();
    throw error;
  }
  return Object.freeze({
    dbos,
    pool,
    schema,
    async sendMessage(input: SendMessageInput) {
      const { sessionId, content } = checkSendInput(input);
      const id = input.id === undefined ? randomUUID() : checkMessageId(input.id);
      const workflowID = messageWorkflowId(sessionId, id);
      if (input.create === true) {
        const inserted = await pool.query(
          `INSERT INTO ${schema}.sessions (id, cwd) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`,
          [sessionId, process.cwd()],
        );
        // A retried `--new` send of the same message is the same send, not a second session.
        if (inserted.rowCount === 0 && (await dbos.getWorkflow(workflowID)) === undefined) {
          throw new DistributedError(
            'SESSION_EXISTS',
            sessionId,
            `Session ${JSON.stringify(sessionId)} already exists; send to it without --new (create: true)`,
          );
        }
      } else {
        const found = await pool.query(`SELECT 1 FROM ${schema}.sessions WHERE id = $1`, [sessionId]);
        if (found.rowCount === 0) {
          throw new DistributedError(
            'UNKNOWN_SESSION',
            sessionId,
            `Session ${JSON.stringify(sessionId)} does not exist; nothing was enqueued (create it with --new / create: true)`,
          );
        }
      }
      const delivery: Delivery = { kind: 'message', sessionId, id, content };
      await dbos.enqueue(
        {
          queueName: SESSIONS_QUEUE,
          workflowName: DELIVER_WORKFLOW,
          workflowID,
          queuePartitionKey: sessionId,
        },
        delivery,
      );
      return id;
    },
    listApprovals(sessionId: string) {
      return listSessionApprovals({ pool, schema }, sessionId);
    },
    resolveApproval(input: ResolveQueuedApprovalInput) {
      return resolveQueuedApproval({ pool, dbos, schema }, input);
    },
    async close() {
      await dbos.destroy().catch(() => undefined);
      await pool.end().catch(() => undefined);
    },
  });
}

/**
 * Sends one message (connecting, enqueuing durably, disconnecting) and resolves with its id.
 * @param input the database, session, content, and optionally the id and `create`
 * @example
 * const id = await sendMessage({ databaseUrl, sessionId: 's1', content: 'hello', id: 'order-42' });
 */
export async function sendMessage(input: SendMessageInput & QueueConnectionOptions): Promise<string> {
  const queue = await connectQueue(input);
  try {
    return await queue.sendMessage(input);
  } finally {
    await queue.close();
  }
}

/**
 * Answers a deferred approval of a session run by the worker pool (connecting, waiting for the delivery,
 * disconnecting). An unknown request, a different earlier answer or a stale `argsHash` throws `ApprovalError`
 * and enqueues nothing; the same answer again is a no-op.
 * @param input the database, session, request and answer
 * @example
 * await resolveApproval({ databaseUrl, sessionId: 's1', requestId: 'a1', outcome: 'allowed-once', by: 'ana' });
 */
export async function resolveApproval(
  input: ResolveQueuedApprovalInput & QueueConnectionOptions,
): Promise<QueuedApprovalResult> {
  const queue = await connectQueue(input);
  try {
    return await queue.resolveApproval(input);
  } finally {
    await queue.close();
  }
}

/**
 * Lists a stored session's pending deferred approvals, read only (no lease is taken, nothing is written).
 * @param input the database and session
 * @example
 * const { suspended, approvals } = await listApprovals({ databaseUrl, sessionId: 's1' });
 */
export async function listApprovals(
  input: { sessionId: string } & QueueConnectionOptions,
): Promise<SessionApprovals> {
  const queue = await connectQueue(input);
  try {
    return await queue.listApprovals(input.sessionId);
  } finally {
    await queue.close();
  }
}

function checkSendInput(input: SendMessageInput): { sessionId: string; content: string } {
  if (input === null || typeof input !== 'object') throw new TypeError('Expected { sessionId, content }');
  if (typeof input.sessionId !== 'string' || input.sessionId.length === 0 || input.sessionId.length > 200) {
    throw new TypeError(
      `Expected \`sessionId\` to be a non-empty string of at most 200 characters, got ${JSON.stringify(input.sessionId)}`,
    );
  }
  if (typeof input.content !== 'string' || input.content.length === 0) {
    throw new TypeError(
      `Expected \`content\` to be a non-empty string, got ${JSON.stringify(input.content)}`,
    );
  }
  return { sessionId: input.sessionId, content: input.content };
}
