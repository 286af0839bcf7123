import type { AgentHandle } from '../seams/index.js';

/** What a bridge remembers about the open turn of one agent. */
export interface TurnState {
  readonly turn: number;
  /** Stop-hook continuations so far in this turn. */
  stopContinuations: number;
  /** Set by `continue: false`; consumed by the bridge's `agent/turn-stop` listener. */
  pendingStop?: { readonly reason?: string; readonly by?: string } | undefined;
}

/** Per-agent turn state, dropped with the agent (keyed by the handle) and reset when the turn changes. */
export class TurnStates {
  readonly #states = new WeakMap<AgentHandle, TurnState>();

  /** The state of `turn` for `agent`, fresh if the agent has moved on to another turn. */
  get(agent: AgentHandle, turn: number): TurnState {
    const current = this.#states.get(agent);
    if (current?.turn === turn) return current;
    const fresh: TurnState = { turn, stopContinuations: 0 };
    this.#states.set(agent, fresh);
    return fresh;
  }
}
