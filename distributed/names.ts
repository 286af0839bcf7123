// The names a worker, a sender and the sweeper agree on: one queue, one workflow, one DBOS application.
import type { CoreEventData } from '../kernel/index.js';
import type { ApprovalErrorCode } from '../session/index.js';

/** The DBOS queue of every session's messages, partitioned by session id. */
export const SESSIONS_QUEUE = 'seamchart_sessions';

/** The DBOS workflow that delivers one message (or one approval answer) to a session. */
export const DELIVER_WORKFLOW = 'seamchartDeliver';

/** The DBOS application name: it scopes the queue and workflows in DBOS's system tables. */
export const DBOS_APPLICATION = 'seamchart';

/** What the sessions queue carries: a message, or an answer to a deferred approval. */
export type Delivery =
  | {
      readonly kind: 'message';
      readonly sessionId: string;
      readonly id: string;
      readonly content: string;
    }
  | {
      readonly kind: 'approval';
      readonly sessionId: string;
      readonly requestId: string;
      readonly outcome: 'allowed-once' | 'rejected';
      readonly reason?: string;
      readonly by?: string;
      readonly argsHash?: string;
    };

/** What a delivery workflow returns once the session is idle or suspended again. */
export interface DeliveryOutcome {
  readonly sessionId: string;
  readonly status: string;
  /** The executor that ran it. */
  readonly executorId: string;
  /** Turns the session holds afterwards. */
  readonly turns: number;
  /** For an approval answer: what the log holds for the request, or why the answer was refused at run time. */
  readonly approval?:
    | { readonly resolution: CoreEventData<'approval/resolved'> }
    | { readonly refused: { readonly code: ApprovalErrorCode; readonly message: string } };
}

/** The workflow id of a message: sending one id twice to a session delivers it once. */
export function messageWorkflowId(sessionId: string, id: string): string {
  return `${sessionId}/${id}`;
}

/**
 * The workflow id of an answer: one per request (`#` never occurs in a message id), so answering twice
 * delivers once.
 */
export function approvalWorkflowId(sessionId: string, requestId: string): string {
  return `${sessionId}/#approval/${requestId}`;
}

const MESSAGE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Checks a caller's message id: 1–128 of `[A-Za-z0-9._:-]`, never the generated form `m<number>`.
 * @param id the id to check
 */
export function checkMessageId(id: unknown): string {
  if (typeof id !== 'string' || !MESSAGE_ID.test(id) || /^m\d+$/.test(id)) {
    throw new TypeError(
      `Expected the message id to be 1–128 characters of [A-Za-z0-9._:-] and not of the form m<number>, got ${JSON.stringify(id)}`,
    );
  }
  return id;
}
