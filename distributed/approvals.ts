// Deferred approvals of sessions run by the worker pool: read from the stored log, answered through the queue.
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import type { Pool } from 'pg';
import type { CoreEventData } from '../kernel/index.js';
import {
  type ApprovalAnswerInput,
  ApprovalError,
  findSuspension,
  type ListedApproval,
  listPendingApprovals,
  planApprovalAnswer,
  readPostgresLog,
  SessionLoadError,
} from '../session/index.js';
import { DistributedError } from './errors.js';
import {
  approvalWorkflowId,
  DELIVER_WORKFLOW,
  type Delivery,
  type DeliveryOutcome,
  SESSIONS_QUEUE,
} from './names.js';

/** A suspended session's pending requests, as `listApprovals` reads them (nothing is written, no lease taken). */
export interface SessionApprovals {
  /** Whether the session's last turn is suspended. */
  readonly suspended: boolean;
  readonly approvals: readonly ListedApproval[];
}

/** An answer to one request of a session run by the worker pool. */
export interface ResolveQueuedApprovalInput extends ApprovalAnswerInput {
  readonly sessionId: string;
  readonly requestId: string;
}

/** What an answer through the queue did. */
export interface QueuedApprovalResult {
  /** The answer the log holds for the request. */
  readonly resolution: CoreEventData<'approval/resolved'>;
  /** `false`: the same answer was already recorded, nothing was enqueued. */
  readonly enqueued: boolean;
  /** What the delivery workflow reported once the session was idle or suspended again (when enqueued). */
  readonly delivery?: DeliveryOutcome;
}

/** The connection an approval call uses: the session tables and DBOS's client. */
export interface ApprovalConnection {
  readonly pool: Pool;
  readonly dbos: DBOSClient;
  readonly schema: string;
}

/**
 * Lists a stored session's pending deferred approvals, read only.
 * @param connection the pool and schema
 * @param sessionId the session
 */
export async function listSessionApprovals(
  connection: Pick<ApprovalConnection, 'pool' | 'schema'>,
  sessionId: string,
  now: Date = new Date(),
): Promise<SessionApprovals> {
  const events = await storedEvents(connection, sessionId);
  return { suspended: findSuspension(events) !== undefined, approvals: listPendingApprovals(events, now) };
}

/**
 * Checks an answer against the stored log (refusals throw `ApprovalError` and enqueue nothing), then enqueues
 * it on the session's partition and waits for the delivery: a worker records it and resumes the turn once no
 * request is pending. A conflict found at run time (another answer recorded meanwhile) throws too.
 * @param connection the pool, DBOS client and schema
 * @param input the session, request and answer
 */
export async function resolveQueuedApproval(
  connection: ApprovalConnection,
  input: ResolveQueuedApprovalInput,
): Promise<QueuedApprovalResult> {
  const { sessionId, requestId, answer } = checkAnswerInput(input);
  const events = await storedEvents(connection, sessionId);
  const plan = planApprovalAnswer(events, requestId, answer);
  if (plan.kind === 'same') return { resolution: plan.data, enqueued: false };
  const delivery: Delivery = { kind: 'approval', sessionId, requestId, ...answer };
  const handle = await connection.dbos.enqueue<(delivery: Delivery) => Promise<DeliveryOutcome>>(
    {
      queueName: SESSIONS_QUEUE,
      workflowName: DELIVER_WORKFLOW,
      workflowID: approvalWorkflowId(sessionId, requestId),
      queuePartitionKey: sessionId,
    },
    delivery,
  );
  const outcome = await handle.getResult();
  const answered = outcome.approval;
  if (answered === undefined) {
    throw new Error(`session ${sessionId}: the delivery of the answer to ${requestId} reported no answer`);
  }
  if ('refused' in answered) {
    throw new ApprovalError(answered.refused.code, requestId, answered.refused.message);
  }
  // The workflow id is per request: an earlier, different answer still in the queue ran instead of this one.
  if (answered.resolution.outcome !== answer.outcome) {
    throw new ApprovalError(
      'APPROVAL_ALREADY_RESOLVED',
      requestId,
      `Approval request "${requestId}" was answered ${answered.resolution.outcome} meanwhile${answered.resolution.by === undefined ? '' : ` by ${answered.resolution.by}`}; it cannot become ${answer.outcome}`,
    );
  }
  return { resolution: answered.resolution, enqueued: true, delivery: outcome };
}

async function storedEvents(connection: Pick<ApprovalConnection, 'pool' | 'schema'>, sessionId: string) {
  try {
    return await readPostgresLog({ pool: connection.pool, schema: connection.schema, sessionId });
  } catch (error) {
    if (error instanceof SessionLoadError && error.code === 'NOT_FOUND') {
      throw new DistributedError(
        'UNKNOWN_SESSION',
        sessionId,
        `Session ${JSON.stringify(sessionId)} does not exist; nothing was enqueued`,
      );
    }
    throw error;
  }
}

function checkAnswerInput(input: ResolveQueuedApprovalInput): {
  sessionId: string;
  requestId: string;
  answer: ApprovalAnswerInput;
} {
  if (input === null || typeof input !== 'object') {
    throw new TypeError('Expected { sessionId, requestId, outcome, reason?, by?, argsHash? }');
  }
  const { sessionId, requestId, outcome, reason, by, argsHash } = input;
  for (const [name, value] of [
    ['sessionId', sessionId],
    ['requestId', requestId],
  ] as const) {
    if (typeof value !== 'string' || value.length === 0) {
      throw new TypeError(`Expected \`${name}\` to be a non-empty string, got ${JSON.stringify(value)}`);
    }
  }
  if (outcome !== 'allowed-once' && outcome !== 'rejected') {
    throw new TypeError(
      `Expected \`outcome\` to be 'allowed-once' or 'rejected', got ${JSON.stringify(outcome)}`,
    );
  }
  for (const [name, value] of [
    ['reason', reason],
    ['by', by],
    ['argsHash', argsHash],
  ] as const) {
    if (value !== undefined && typeof value !== 'string') {
      throw new TypeError(`Expected \`${name}\` to be a string, got ${JSON.stringify(value)}`);
    }
  }
  return {
    sessionId,
    requestId,
    answer: {
      outcome,
      ...(reason === undefined ? {} : { reason }),
      ...(by === undefined ? {} : { by }),
      ...(argsHash === undefined ? {} : { argsHash }),
    },
  };
}
