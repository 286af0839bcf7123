import type { Failure } from '../../kernel/index.js';
import type { Instructions, ModelAdapter, ModelSettings } from '../../model/index.js';
import type { AgentHandle, ApprovalChannel, Seams } from '../../seams/index.js';
import type { SessionLog } from '../../session/index.js';
import type { ToolRegistryCore } from '../../tools/index.js';

/** What the tool machines need: bound with `machine.provide` by `createToolCallLogic`/`createToolBatchLogic`. */
export interface ToolMachineServices {
  readonly tools: ToolRegistryCore;
  readonly cancelGraceMs: number;
  /** The seam registry: `seam/decided` for skipped waterfalls, `tools/result`, the approval fallback. */
  readonly seams: Seams;
  /** The agent the calls run for when the scope names none (a standalone call may have none). */
  readonly agent?: AgentHandle;
  /** The approval channel of a call that opens its own scope (else the registry's, for an agent's call). */
  readonly approval?: ApprovalChannel;
  /** The agent's log; only the batch appends (`tool/call`, `tool/result`). */
  readonly log?: SessionLog;
  /** Contained notify failures (the agent turns them into `agent/error`). */
  reportError?(failure: { error: Failure; origin: string; turn?: number; step?: number }): void;
}

/** What the turn and agent machines need on top of the tool services. */
export interface TurnMachineServices extends ToolMachineServices {
  readonly seams: Seams;
  readonly model: ModelAdapter;
  readonly log: SessionLog;
  readonly agent: AgentHandle;
  readonly maxParallelToolCalls: number;
  readonly maxRequestRetries: number;
  readonly sessionStartTimeoutMs: number;
  /** The system prompt of every request (evaluated inside each model request). */
  readonly instructions?: Instructions;
  /** The adapter's settings merged with the agent's `modelSettings` (none when absent). */
  readonly modelSettings?: ModelSettings;
  /** Steps a turn may take before it ends `max-steps` (default 100). */
  readonly maxStepsPerTurn?: number;
  /** Contained failures become `agent/error` notifications. */
  reportError(failure: { error: Failure; origin: string; turn?: number; step?: number }): void;
}
