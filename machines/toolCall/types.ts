import type { AnyActorRef } from 'xstate';
import type { HookContext, PreToolDecision, ToolResult } from '../../kernel/index.js';
import type { ToolCallRecord } from '../../tools/index.js';

/** The seams a call may invoke; `guard` stands for the guard list. */
export type ToolSeamKey =
  | 'tools/prepare'
  | 'tools/pre-execute'
  | 'guard'
  | 'tools/execute'
  | 'tools/post-execute'
  | 'tools/result';
/** Which tool seams had listeners when the call started. */
export type ToolSeamsPresent = Record<ToolSeamKey, boolean>;
export const toolSeamKeys: readonly ToolSeamKey[] = Object.freeze([
  'tools/prepare',
  'tools/pre-execute',
  'guard',
  'tools/execute',
  'tools/post-execute',
  'tools/result',
]);

/** A call's request as plain data: what a standalone call needs to open itself. */
export interface ToolCallRequestData {
  readonly callId: string;
  readonly name: string;
  /** The raw arguments: a JSON string from the model, or an object. */
  readonly arguments: unknown;
}

export interface ToolCallInput {
  /** The run's scope in the system's table (`liveHandlesOf`); absent: the call opens its own from the services. */
  readonly scopeKey?: string;
  /** Where the caller opened the call in the system's table (the batch does); absent: the call opens `call`. */
  readonly callKey?: string;
  /** The request, for a call that opens itself (no `callKey`). */
  readonly call?: ToolCallRequestData;
  /** Under a batch: report `PREPARED`/`SETTLED` and wait for `COMMIT`; standalone (default): commit at once. */
  readonly batched?: boolean;
  readonly turn?: number;
  readonly step?: number;
  /** An earlier call of the batch is parked: this call stops before guards (`held`) instead of dispatching. */
  readonly holdDispatch?: boolean;
  /** Re-entering a suspended step from the log: the call starts `parked` (with its answer) or `held`. */
  readonly resume?: ToolCallResume;
}

/** How a call of a suspended step re-enters its chart (approvals.md); its `tool/call` is in the log already. */
export type ToolCallResume =
  | {
      readonly as: 'parked';
      readonly requestId: string;
      /** The answer recorded for the request (`null`: none yet, so it parks again). */
      readonly answer: { readonly outcome: string; readonly reason?: string } | null;
    }
  | { readonly as: 'held' };

/** What a call knows about asking: the reason and who asked, and how it parks or re-enters. */
export interface CallApproval {
  /** The `ask` decision's reason, shown to the approver. */
  readonly reason: string | null;
  /** The listener or hook that said `ask`. */
  readonly askedBy: string | null;
  /** With `deferred`: when the request expires. */
  readonly expiresAt: string | null;
  readonly holdDispatch: boolean;
  /** Cleared once the call left the state it re-entered in. */
  readonly resume: ToolCallResume | null;
}

/** Plain data only: live handles stay in the call table under `callKey`. */
export interface ToolCallContext {
  readonly scopeKey: string;
  readonly callKey: string;
  /** The request of a call that opens itself (`openCall`), else `null`. */
  readonly request: ToolCallRequestData | null;
  /**
   * What the call opened itself and closes when done: its run scope (no `scopeKey` in the input), its
   * handles (no `callKey`), or nothing (the batch opened both).
   */
  readonly owns: 'scope' | 'call' | 'nothing';
  readonly batched: boolean;
  readonly turn: number | null;
  readonly step: number | null;
  readonly callId: string;
  readonly name: string;
  readonly hasFinalizer: boolean;
  readonly seamsPresent: ToolSeamsPresent;
  readonly aborted: boolean;
  /** `cancelGrace` has passed since the first abort: a review still running (or not started) is abandoned. */
  readonly graceOver: boolean;
  /** `PREPARED` was reported (the policy lane is free again). */
  readonly prepared: boolean;
  /** Under a batch: its `tool/call` is in the log (`RECORDED`), so its body may start. */
  readonly recorded: boolean;
  /** A pipeline error or an abort before dispatch: post-execute does not run. */
  readonly skipPost: boolean;
  /** The candidate result (without contexts until `finalizing` assembles them). */
  readonly result: ToolResult | null;
  /** The `ask` decision's reason and asker, and how the call parks or re-enters (approvals.md). */
  readonly approval: CallApproval;
  /** The contexts returned so far, by phase (grouped: a context of 20 keys or more is slow to copy). */
  readonly contexts: {
    readonly pre: readonly HookContext[];
    readonly body: readonly HookContext[];
    readonly post: readonly HookContext[];
  };
}

/** The phases that compute something; none is an actor (see `phases.ts`). */
export interface ToolPhaseOutputs {
  detach: DetachOutput;
  prepare: PrepareOutput;
  preExecute: PreExecuteOutput;
  approval: ApprovalOutput;
  guards: GuardsOutput;
  dispatch: DispatchOutput;
  postExecute: PostExecuteOutput;
  finalize: FinalizeOutput;
}
export type ToolPhase = keyof ToolPhaseOutputs;
/** Synchronous phases: run by `runPhase`, which raises their outcome in the same macrostep. */
export type SyncToolPhase = 'detach' | 'guards' | 'finalize';
/** Asynchronous phases: started by `startPhase` on entry, stopped by `stopPhase` on exit. */
export type AsyncToolPhase = Exclude<ToolPhase, SyncToolPhase>;

/** A phase's outcome, sent back to the call (`<phase>.done` with its output, `<phase>.error`). */
export type ToolPhaseEvent = {
  [P in ToolPhase]:
    | { type: `${P}.done`; output: ToolPhaseOutputs[P] }
    | { type: `${P}.error`; error: unknown };
}[ToolPhase];

/** `CANCEL_GRACE_OVER` is raised by the call itself `cancelGrace` after its first `ABORT`. */
export type ToolCallEvent =
  | { type: 'COMMIT' }
  // From the batch, once the call's `tool/call` is in the log.
  | { type: 'RECORDED' }
  | { type: 'ABORT' }
  | { type: 'CANCEL_GRACE_OVER' }
  | ToolPhaseEvent;

/**
 * What a batched call tells its batch: the input it will run with (after `tools/prepare`, before
 * pre-execute: the batch records `tool/call` from it), that the policy lane is free, that it settled.
 */
export type ToolCallReport =
  | ({ type: 'PREPARED_INPUT'; callId: string } & ToolCallRecord)
  // One event for what the batch schedules on (the lane is free, the call settled, parked or is held), so
  // the batch reschedules on one edge.
  | { type: 'call.report'; report: 'PREPARED' | 'SETTLED'; callId: string }
  // Both free the policy lane, as PREPARED does: the call waits for a resume (approvals.md).
  | { type: 'call.report'; report: 'PARKED'; callId: string; request: ParkedRequest }
  | { type: 'call.report'; report: 'HELD'; callId: string };

/** The kinds of `call.report`. */
export type CallReportKind = Extract<ToolCallReport, { type: 'call.report' }>['report'];

/** What the batch records in `approval/requested` for a parked call (or the request it re-parked on). */
export interface ParkedRequest {
  /** Set when the call re-parked on a request already in the log (answered, but its dispatch is held). */
  readonly requestId: string | null;
  readonly answered: boolean;
  readonly reason: string | null;
  readonly askedBy: string;
  readonly expiresAt: string | null;
}

export interface ToolCallOutput {
  readonly callId: string;
  /** Frozen, with `additionalContexts` in order (pre-execute, body, post-execute). */
  readonly result: ToolResult;
}

export type DetachOutcome = 'detached' | 'invalid-args' | 'pre-aborted';
export interface DetachOutput {
  readonly callId: string;
  readonly name: string;
  readonly hasFinalizer: boolean;
  readonly seamsPresent: ToolSeamsPresent;
  readonly preparable: boolean;
  readonly outcome: DetachOutcome;
  /** The `INVALID_ARGS` message. */
  readonly message?: string;
}
/** The fold ran: `prepared` (the input to seal is in the call table) or `refused` with the call's result. */
export type PrepareOutput =
  | { readonly outcome: 'prepared' }
  | { readonly outcome: 'refused'; readonly result: ToolResult };
export interface PreExecuteOutput {
  readonly decision: PreToolDecision;
  readonly decidedBy: string;
}
export type ApprovalOutput =
  | { readonly kind: 'granted' }
  | { readonly kind: 'denied'; readonly reason: string }
  /** The channel answered `cancelled` because the call itself was aborted. */
  | { readonly kind: 'aborted' }
  /** Someone will answer later: the call parks (approvals.md). */
  | { readonly kind: 'deferred'; readonly expiresAt: string | null };
export interface GuardsOutput {
  readonly denied: string | null;
  readonly by: string | null;
}
export interface DispatchOutput {
  /** Without contexts; the body's deferred contexts travel apart. */
  readonly result: ToolResult;
  readonly contexts: readonly HookContext[];
}
export interface PostExecuteOutput {
  readonly result: ToolResult;
  readonly contexts: readonly HookContext[];
  readonly blocked: boolean;
}
export interface FinalizeOutput {
  readonly result: ToolResult;
}
