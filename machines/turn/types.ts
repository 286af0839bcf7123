import type { AnyActorRef } from 'xstate';
import type {
  ContinuationDecision,
  Failure,
  HookContext,
  PromptDecision,
  ToolCallBlock,
  TurnEndReason,
} from '../../kernel/index.js';
import type { CancelCause } from '../../seams/index.js';
import type { ResumeSlot } from '../../session/index.js';
import type { InboxItem, Injection } from '../runtime/index.js';
import type { AcceptedAnswer } from './rules.js';

/** The turn-scoped seams whose presence is snapshotted into context when the turn starts. */
export const turnSeams = [
  'agent/prompt-submit',
  'agent/pre-step',
  'agent/post-step',
  'agent/request-error',
  'agent/turn-continuation',
  'agent/turn-stop',
] as const;
export type TurnSeamName = (typeof turnSeams)[number];
export type SeamsPresent = Record<TurnSeamName, boolean>;

/** Input of the turn machine: one claimed item and plain settings; live handles sit in the run scope. */
export interface TurnInput {
  /** Who hears the turn's reports (suspended, closed, steering taken); absent for a turn run on its own. */
  readonly parent?: AnyActorRef;
  /** The run scope opened in the turn's system (the agent's); without one the turn opens its own. */
  readonly scopeKey?: string;
  readonly agentId: string;
  /** Last `turn/start` in the log + 1. */
  readonly turn: number;
  readonly item: InboxItem;
  readonly seamsPresent: SeamsPresent;
  readonly maxRequestRetries: number;
  readonly maxParallel: number;
  /** The step cap: the continuation edge back into `step` is closed at this step (`max-steps`). */
  readonly maxStepsPerTurn: number;
  /** Re-entering a suspended turn from the log: it starts in the step's `suspended` state (approvals.md). */
  readonly resume?: TurnResume;
}

/** A turn's input with its run scope named; `ownsScope` when the turn opened it (and closes it). */
export interface ScopedTurnInput extends TurnInput {
  readonly scopeKey: string;
  readonly ownsScope?: true;
}

/** Where a suspended turn goes on, all of it read from the log (`findResumePoint`). */
export interface TurnResume {
  readonly step: number;
  /** The step's tool-call blocks, model order. */
  readonly calls: readonly ToolCallBlock[];
  readonly slots: readonly ResumeSlot[];
  /** The step's held contexts: they land after the batch. */
  readonly contexts: readonly HookContext[];
  /** Steering sent while the turn was suspended (or still pending in it): for its next step. */
  readonly steering: readonly InboxItem[];
  /** A cancel of the suspended turn: the batch resumes aborted and the turn ends `aborted`. */
  readonly cancel: { readonly cause: CancelCause; readonly keepInbox: boolean } | null;
}

/** A turn failure as recorded on `turn/end`. */
export interface TurnFailure {
  readonly step: number;
  readonly message: string;
  readonly code?: string | undefined;
}

/** What the current step's answer and decisions say; a fresh one when each step begins. */
export interface StepState {
  /** Tool-call blocks of the step's answer (model order). */
  readonly calls: readonly ToolCallBlock[];
  /** Steering was drained into the step after its batch. */
  readonly steered: boolean;
  /** The step's continuation decision (before the steering override). */
  readonly proceed: boolean;
  /** Who decided the continuation's `stop`, when a listener did (`turn/end.decidedBy`). */
  readonly stoppedBy: string | undefined;
}

/** The model request's retry count and its last failure. */
export interface RequestRetries {
  /** Consecutive failed requests (reset by a successful step). */
  readonly failures: number;
  readonly lastFailure: Failure | null;
}

/**
 * Plain-data context of the turn machine. Under 20 top-level keys: XState's `assign` copies it with
 * `Object.assign({}, …)`, which V8 turns into a slow dictionary from 20 keys on (decisions.md).
 */
export interface TurnContext {
  /** What the agent started the turn with; never changes. */
  readonly input: ScopedTurnInput;
  /** Current step number; 0 until the first step is entered. */
  readonly step: number;
  /** `step/start` appended and `step/end` still owed. */
  readonly stepOpen: boolean;
  /** Contexts accepted while the step's request or batch is in flight, in arrival order. */
  readonly stepFifo: readonly HookContext[];
  readonly thisStep: StepState;
  /** Pending steering for the next step of this turn. */
  readonly steering: readonly InboxItem[];
  /** Steering dropped by a cancel without `keepInbox` (the agent discards it). */
  readonly dropped: readonly InboxItem[];
  /** Injections that arrived after `turn/end`: the agent writes them as injection turns. */
  readonly held: readonly Injection[];
  /** Sticky once any step finished `max-tokens`. */
  readonly maxTokens: boolean;
  /** The turn closed at the step cap. */
  readonly maxSteps: boolean;
  /** A step of this turn has an answer (a forcing `toolChoice` then resets to `auto`). */
  readonly answered: boolean;
  readonly request: RequestRetries;
  readonly failure: TurnFailure | null;
  readonly rejected: string | null;
  readonly cancel: CancelCause | null;
  /** `decidedBy`: who the log names (a hook handler a bridge spoke for), kept out of the end reason. */
  readonly stop: {
    readonly stoppedBy: string;
    readonly stopReason?: string;
    readonly decidedBy?: string | undefined;
  } | null;
  readonly endReason: TurnEndReason | null;
  /** The resume the turn started from, until its batch is done (then `null`). */
  readonly resume: TurnResume | null;
  /** What the store refused and the turn still owes the log (`storage.md`: nothing acknowledged is lost). */
  readonly refusals: Refusals;
}

/** A write the log owes for the turn's shape: written again once when the store refuses it. */
export type OwedWrite = 'turn/start' | 'step/end' | 'turn/end';

/** The store's refusals the turn answers in its chart. */
export interface Refusals {
  /** The owed write the store refused on its last attempt (cleared before each attempt). */
  readonly refused: OwedWrite | null;
  /** The owed writes already written again once: a second refusal is reported and given up. */
  readonly rewritten: readonly OwedWrite[];
  /** Steering whose `steering/message` was refused: never drained, the agent re-queues it as a message. */
  readonly undrained: readonly InboxItem[];
}

/** What the turn's own phases send back: the step's model request and the log flush (`phases.ts`). */
export type TurnPhaseEvent =
  | { type: 'model.done'; output: AcceptedAnswer }
  | { type: 'model.error'; error: unknown }
  | { type: 'flush.done' }
  | { type: 'flush.error'; error: unknown };

/** Events the turn accepts (from the agent, the batch, its own phases and its own failing actions). */
export type TurnEvent =
  | TurnPhaseEvent
  | { type: 'TURN_OPENED' }
  | { type: 'TURN_SUSPENDED' }
  | { type: 'STEER'; item: InboxItem }
  | { type: 'INJECT'; injection: Injection }
  | { type: 'CANCEL'; cause: CancelCause; keepInbox: boolean }
  | { type: 'CALL_COMMITTED'; callId: string; contexts: HookContext[] }
  | { type: 'INTERNAL_ERROR'; error: Failure };

/** What the turn returns to the agent. */
export interface TurnOutput {
  readonly reason: TurnEndReason;
  /** Steering that never reached a step: the agent re-queues it (or discards it after a terminal stop). */
  readonly leftoverSteering: readonly InboxItem[];
  /** Steering dropped by a cancel without `keepInbox`. */
  readonly droppedSteering: readonly InboxItem[];
  readonly terminalStopped: boolean;
  /** Injections that arrived after `turn/end`; the agent writes them as injection turns. */
  readonly heldInjections: readonly Injection[];
}

/** Sent to the parent agent right after `turn/suspended` is appended: the agent stops the turn and suspends. */
export interface TurnSuspendedEvent {
  readonly type: 'TURN_SUSPENDED';
}

/** Sent to the parent agent right after `turn/end` is appended. */
export interface TurnClosedEvent {
  readonly type: 'TURN_CLOSED';
}

/**
 * Sent to the parent agent when the turn itself takes on or ends inbox-ledger entries of steering:
 * `STEERING_HELD` for a continuation reason it enqueued, `STEERING_ENDED` for steering it dequeued into
 * a step or discarded after a terminal stop. With the ids it forwarded, the agent then knows which
 * entries a turn that dies still holds, and discards them.
 */
export type TurnSteeringReport =
  | { readonly type: 'STEERING_HELD'; readonly ids: readonly string[] }
  | { readonly type: 'STEERING_ENDED'; readonly ids: readonly string[] };

/** Input of the seam actors of a turn. */
export interface TurnSeamInput {
  readonly scopeKey: string;
  readonly agentId: string;
  readonly turn: number;
  readonly step: number;
}
/** What the step's model request is made from. */
export interface ModelInput extends TurnSeamInput {
  /** Whether the turn already has an answer (for `resetToolChoice`). */
  readonly answered: boolean;
}
export interface PromptSubmitInput extends TurnSeamInput {
  readonly item: InboxItem;
}
export interface RequestErrorInput extends TurnSeamInput {
  readonly error: Failure;
  readonly priorFailures: number;
}
export interface ContinuationInput extends TurnSeamInput {
  readonly defaultDecision: ContinuationDecision;
}
export interface TurnStopOutput {
  readonly decision: { action: 'stop'; reason?: string | undefined; by?: string | undefined } | undefined;
  readonly decidedBy: string;
}

/** Input of the toolBatch machine the turn invokes (one per assistant step with tool calls). */
export type { ToolBatchInput } from '../toolBatch/index.js';
export type { PromptDecision };
