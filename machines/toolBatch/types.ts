import type { AnyActorRef } from 'xstate';
import type { HookContext, ToolCallBlock } from '../../kernel/index.js';
import type { ResumeSlot } from '../../session/index.js';
import type { ToolCallOutput, ToolCallReport } from '../toolCall/index.js';

export interface ToolBatchInput {
  /** The turn that hears each commit (`CALL_COMMITTED`); absent for a batch run on its own. */
  readonly parent?: AnyActorRef;
  /** The run scope opened in the batch's system (a turn's); without one the batch opens its own. */
  readonly scopeKey?: string;
  readonly turn: number;
  readonly step: number;
  /** The answer's tool-call blocks, model order (ids unique and non-empty: the turn checks). */
  readonly calls: readonly ToolCallBlock[];
  readonly maxParallel: number;
  /** Re-entering a suspended step: each call's slot as the log shows it (approvals.md). */
  readonly resume?: BatchResume;
}

/** A suspended step's calls, read from the log; `aborted` when the resume is a cancel. */
export interface BatchResume {
  readonly slots: readonly ResumeSlot[];
  readonly aborted: boolean;
}

/** Why a started call waits for the turn to resume: parked on a request, or held before guards. */
export type CallWait =
  | { readonly kind: 'parked'; readonly requestId: string; readonly answered: boolean }
  | { readonly kind: 'held' };

/** What `turn/suspended` lists for the batch's step. */
export interface BatchSuspension {
  readonly pending: readonly string[];
  readonly held: readonly string[];
  readonly notStarted: readonly string[];
}

export type ConcurrencyMode = 'parallel' | 'exclusive';

/** Plain data: per-call slots and the commit cursor; the batch steps each call's machine. */
export interface ToolBatchContext {
  /** The turn that hears each commit; `null` for a batch run on its own. */
  readonly parent: AnyActorRef | null;
  readonly scopeKey: string;
  /** The batch opened its run scope itself (its input named none): it closes it when it stops. */
  readonly ownsScope: boolean;
  readonly turn: number;
  readonly step: number;
  readonly maxParallel: number;
  readonly calls: readonly ToolCallBlock[];
  /** Calls `[0, started)` have started; `[0, cursor)` are committed. */
  readonly started: number;
  readonly cursor: number;
  /** The call in its policy phase (pre-execute, approval, guards), if any: the lane is busy. */
  readonly preparing: number | null;
  readonly settled: readonly boolean[];
  /** The mode each started call was started with. */
  readonly modes: readonly ConcurrencyMode[];
  /** Why a stepped call died (a step threw), by index (its result is then written by the batch). */
  readonly crashed: readonly (string | null)[];
  /** The mode of the next call, read when it was about to start. */
  readonly nextMode: ConcurrencyMode | null;
  readonly aborted: boolean;
  /** A side effect failed (an append): the batch finished early. */
  readonly failure: string | null;
  /** Why each started call waits for a resume (null: it does not). */
  readonly waiting: readonly (CallWait | null)[];
  /** The slots of a resumed step (null for a fresh batch). */
  readonly resume: readonly ResumeSlot[] | null;
  /** Set when the batch suspends: what `turn/suspended` lists. */
  readonly suspension: BatchSuspension | null;
}

export type ToolBatchEvent =
  | ToolCallReport
  | { type: 'ABORT' }
  | { type: 'INTERNAL_ERROR'; message: string }
  | { type: 'FINISH' }
  // The next call's classification (`classifyNext`), for the call at `index`.
  | { type: 'classify.done'; index: number; output: ClassifyOutput }
  | { type: 'classify.error'; index: number; error: unknown }
  // The stepped call at `index` reached its final state, or a step of it threw.
  | { type: 'call.done'; index: number; output: ToolCallOutput }
  | { type: 'call.error'; index: number; error: unknown };

/** What the batch tells the turn after each `tool/result`. */
export interface CallCommittedEvent {
  readonly type: 'CALL_COMMITTED';
  readonly callId: string;
  readonly contexts: readonly HookContext[];
}

export interface ToolBatchOutput {
  readonly aborted: boolean;
  /** Every call left waits for an answer: the turn suspends (approvals.md). */
  readonly suspended?: BatchSuspension;
  /** Set when an append failed and the batch stopped early (the turn repairs the log). */
  readonly error?: string;
}

export interface ClassifyOutput {
  readonly mode: ConcurrencyMode;
}

export type { ToolCallOutput };
