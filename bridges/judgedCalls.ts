import type { JsonValue } from '../kernel/index.js';
import type { AgentHandle, PrepareContext, ToolExecution } from '../seams/index.js';
import type { FiredEvent } from './fire.js';

/** What the PreToolUse hooks decided at `tools/prepare` for one call, carried to its `tools/pre-execute`. */
export interface JudgedCall {
  readonly callId: string;
  readonly agent: AgentHandle | undefined;
  readonly turn: number | undefined;
  readonly step: number | undefined;
  /** The input the verdict is about: what the bridge's fold step handed on. */
  readonly input: JsonValue;
  /** The hooks' outcome; `undefined` when no hook matched. */
  readonly fired: FiredEvent | undefined;
}

/**
 * The PreToolUse verdicts of one applied bridge, one per call between its `tools/prepare` and its
 * `tools/pre-execute`. Keyed by the call's own AbortSignal — the one object the prepare context
 * and the sealed execution share — so a verdict is dropped with its call and never leaks across
 * agents; the agent, turn, step and call id are checked too.
 */
export class JudgedCalls {
  readonly #byCall = new WeakMap<AbortSignal, JudgedCall>();

  remember(ctx: PrepareContext, input: JsonValue, fired: FiredEvent | undefined): void {
    this.#byCall.set(ctx.signal, {
      callId: ctx.callId,
      agent: ctx.agent,
      turn: ctx.turn,
      step: ctx.step,
      input,
      fired,
    });
  }

  /** The verdict remembered for this call (consumed), or `undefined` when its prepare did not judge it. */
  take(exec: ToolExecution): JudgedCall | undefined {
    const judged = this.#byCall.get(exec.signal);
    this.#byCall.delete(exec.signal);
    if (judged === undefined) return undefined;
    const same =
      judged.callId === exec.callId &&
      judged.agent === exec.agent &&
      judged.turn === exec.turn &&
      judged.step === exec.step;
    return same ? judged : undefined;
  }
}
