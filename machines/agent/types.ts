import type { AgentStatus, ApprovalChannel, CancelCause, SeamLogger } from '../../seams/index.js';
import type { DiscardEntry, InboxItem, Injection, TurnMachineServices } from '../runtime/index.js';
import type { ScopedTurnInput, TurnSteeringReport } from '../turn/index.js';

/** Input of the agent machine. */
export interface AgentInput {
  readonly agentId: string;
  /** `resume` when the store came with earlier events. */
  readonly source: 'startup' | 'resume';
  /** Whether `agent/session-start` had listeners when the agent was created. */
  readonly sessionStartPresent: boolean;
  /** Items a resume re-queues from the log (announced before session start). */
  readonly resumed: readonly InboxItem[];
  /**
   * The log ends with a suspended turn (approvals.md): `waiting` for answers, or `answered` (every request
   * answered while no agent ran: it resumes at once after session start).
   */
  readonly suspension?: 'none' | 'waiting' | 'answered';
}

/** Why the store failed, as plain data. */
export interface StoreFailure {
  readonly code: string;
  readonly message: string;
}

/** Plain-data context of the agent machine. */
export interface AgentContext extends Omit<AgentInput, 'suspension'> {
  /** Whether the open turn is suspended on deferred approvals (see `AgentInput.suspension`). */
  readonly suspension: 'none' | 'waiting' | 'answered';
  /** The last announced status (the initial `idle` is never announced). */
  readonly status: AgentStatus;
  /** The inbox: followups, queued messages and steering that became messages, FIFO. */
  readonly queued: readonly InboxItem[];
  /** Input of the open turn (set by `claiming`). */
  readonly current: ScopedTurnInput | null;
  /** Injections that arrived between `TURN_CLOSED` and the turn's done. */
  readonly held: readonly Injection[];
  /** Items dropped while a turn was open; discarded in one event together with the turn's dropped steering. */
  readonly pendingDiscard: readonly DiscardEntry[];
  /** A cancel after `TURN_CLOSED` also drops the closed turn's leftover steering. */
  readonly discardLeftover: boolean;
  /** `DISPOSE` arrived while a turn was open. */
  readonly disposing: boolean;
  /**
   * Ids of the steering whose inbox-ledger entry the open turn holds: forwarded to it, or enqueued by it
   * (`STEERING_HELD`), and not yet dequeued or discarded by it (`STEERING_ENDED`). Discarded if it dies.
   */
  readonly turnSteering: readonly string[];
  /** The session store failed: the agent moves to `failed` and takes nothing more. */
  readonly storeFailed: StoreFailure | null;
  /** `DISPOSE` asked to keep pending items for a resume. */
  readonly keepInboxOnDispose: boolean;
}

/** Events the agent accepts (from its handle and from its turn). */
export type AgentEvent =
  | { type: 'SEND'; item: InboxItem }
  | { type: 'QUEUE'; item: InboxItem }
  | { type: 'STEER'; item: InboxItem }
  | { type: 'INJECT'; injection: Injection }
  | { type: 'CANCEL'; cause: CancelCause; keepInbox: boolean }
  | { type: 'DISPOSE'; keepInbox: boolean }
  | { type: 'STORE_FAILED'; failure: StoreFailure }
  | { type: 'TURN_CLOSED' }
  // The turn suspended on deferred approvals; every request of it is answered now (`resolveApproval`).
  | { type: 'TURN_SUSPENDED' }
  | { type: 'RESUME' }
  // Disposal's last flush settled (`startSettle`).
  | { type: 'settle.done' }
  | { type: 'settle.error'; error: unknown }
  | TurnSteeringReport;

/** What the agent machine needs: the turn services plus the agent-level handles. */
export interface AgentMachineServices extends TurnMachineServices {
  readonly agentId: string;
  /** `createAgent({ approval })`; else the registry's channel, read when a turn starts. */
  readonly approval?: ApprovalChannel;
  readonly logger: SeamLogger;
}
