import type { ApprovalAnswerInput, ListedApproval, RecordedAnswer } from '../index.js';
import { fileCommands, shellWord } from './approvalText.js';
import { UsageError } from './command.js';

/**
 * Where `seamchart approvals` / `approve` read and answer. A session file today; another store (a database)
 * is one more kind here and one more case in `openApprovalTarget`.
 */
export type ApprovalTarget = { readonly kind: 'file'; readonly file: string };

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
  /** Records an answer while no run holds the session; refused answers throw (`ApprovalError`, `UsageError`). */
  answer(requestId: string, answer: ApprovalAnswerInput, now: Date): Promise<RecordedAnswer>;
  /** The command that answers a request of this session (REQUEST_ID left to fill). */
  readonly approveCommand: string;
  /** The command that continues the session once nothing is pending. */
  readonly resumeCommand: string;
}

/** The backend of a target. */
export function openApprovalTarget(target: ApprovalTarget): ApprovalBackend {
  return fileBackend(target.file);
}

function fileBackend(file: string): ApprovalBackend {
  return {
    ...fileCommands(file),
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
