import type { ApprovalAnswerInput, ListedApproval, RecordedAnswer } from '../index.js';
import { fileCommands, shellWord } from './approvalText.js';
import { UsageError } from './command.js';
import { databaseFailureAsUsage } from './databaseFlags.js';

/** Where `seamchart approvals` / `approve` read and answer: a session file, or a session the worker pool runs. */
export type ApprovalTarget =
  | { readonly kind: 'file'; readonly file: string }
  | { readonly kind: 'database'; readonly databaseUrl: string; readonly sessionId: string };

/** What a target lists: its pending requests, and whether its last turn is suspended at all. */
export interface ApprovalListing {
  readonly suspended: boolean;
  readonly approvals: readonly ListedApproval[];
  /** Said before the list (a live writer holds the session). */
  readonly notes: readonly string[];
}

/** Reads and answers one session's deferred approvals. */
export interface ApprovalBackend {
  /** Read only: nothing is written and no lock is taken. */
  list(now: Date): Promise<ApprovalListing>;
  /** Records an answer; refused answers throw (`ApprovalError`, `UsageError`) and record nothing. */
  answer(requestId: string, answer: ApprovalAnswerInput, now: Date): Promise<RecordedAnswer>;
  /** The command that answers a request of this session (REQUEST_ID left to fill). */
  readonly approveCommand: string;
  /** How the session continues once nothing is pending. */
  readonly resumeCommand: string;
  /** Said after an answer that left nothing pending. */
  readonly whenAnswered: string;
}

/** The backend of a target. */
export function openApprovalTarget(target: ApprovalTarget): ApprovalBackend {
  return target.kind === 'file' ? fileBackend(target.file) : databaseBackend(target);
}

function databaseBackend(target: {
  readonly databaseUrl: string;
  readonly sessionId: string;
}): ApprovalBackend {
  const { databaseUrl, sessionId } = target;
  const session = shellWord(sessionId);
  return {
    approveCommand: `seamchart approve --database-url URL --session ${session} REQUEST_ID [--deny] [--reason TEXT]`,
    resumeCommand: 'nothing to run: a worker resumes the turn once every request is answered',
    whenAnswered: 'nothing is pending: a worker resumed the turn',
    async list(now) {
      const { connectQueue } = await import('../index.js');
      const queue = await databaseFailureAsUsage(() => connectQueue({ databaseUrl }));
      try {
        const listing = await databaseFailureAsUsage(() => queue.listApprovals(sessionId));
        return {
          suspended: listing.suspended,
          approvals: listing.approvals.map((approval) => ({
            ...approval,
            expired:
              approval.request.expiresAt !== undefined &&
              Date.parse(approval.request.expiresAt) <= now.getTime(),
          })),
          notes: [],
        };
      } finally {
        await queue.close();
      }
    },
    async answer(requestId, answer) {
      const { connectQueue } = await import('../index.js');
      const queue = await databaseFailureAsUsage(() => connectQueue({ databaseUrl }));
      try {
        const result = await databaseFailureAsUsage(() =>
          queue.resolveApproval({ sessionId, requestId, ...answer }),
        );
        const after = await queue.listApprovals(sessionId);
        return {
          resolution: result.resolution,
          written: result.enqueued,
          pending: after.approvals.map((approval) => approval.request),
        };
      } finally {
        await queue.close();
      }
    },
  };
}

function fileBackend(file: string): ApprovalBackend {
  return {
    ...fileCommands(file),
    whenAnswered: `nothing is pending: continue with ${fileCommands(file).resumeCommand}`,
    async list(now) {
      const { readJsonlLog, findSuspension, listPendingApprovals } = await import('../index.js');
      const loaded = await loadFailureAsUsage(file, () => readJsonlLog(file));
      const notes =
        loaded.writer === undefined
          ? []
          : [
              `process ${loaded.writer.pid} on ${loaded.writer.host} holds ${file} (since ${loaded.writer.since}); this list may change`,
            ];
      return {
        suspended: findSuspension(loaded.events) !== undefined,
        approvals: listPendingApprovals(loaded.events, now),
        notes,
      };
    },
    async answer(requestId, answer, now) {
      const { openJsonlStore, recordApprovalAnswer } = await import('../index.js');
      // Never repaired here: a crashed file is continued by `run --resume`, which says what it repaired.
      const store = await loadFailureAsUsage(file, () => openJsonlStore(file, { repair: false }));
      try {
        return await recordApprovalAnswer(store, requestId, answer, now);
      } finally {
        await store.close();
      }
    },
  };
}

/** Runs a load of `file`, turning the store's load and lock errors into CLI words (exit 2). */
async function loadFailureAsUsage<T>(file: string, load: () => Promise<T>): Promise<T> {
  const { SessionLoadError, SessionLockedError } = await import('../index.js');
  try {
    return await load();
  } catch (error) {
    if (error instanceof SessionLockedError) {
      const { pid, host, since } = error.holder;
      throw new UsageError(
        `session file ${file} is held by process ${pid} on ${host} (since ${since}); answer once that run has ended (it stops when its turn suspends)`,
      );
    }
    if (error instanceof SessionLoadError) {
      if (error.code === 'NEEDS_REPAIR')
        throw new UsageError(
          `session file ${file} needs a crash repair and is not suspended; \`seamchart run --resume --session ${shellWord(file)}\` repairs it`,
        );
      if (error.code === 'NOT_FOUND' || error.code === 'READ_FAILED')
        throw new UsageError(`cannot read session file ${file}`);
      throw new UsageError(error.message);
    }
    throw error;
  }
}
