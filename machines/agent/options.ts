import type { InspectionEvent } from 'xstate';
import type { Instructions, ModelAdapter } from '../../model/index.js';
import { type ModelSettings, mergeModelSettings, parseModelSettings } from '../../model/index.js';
import type { ApprovalChannel, SeamLogger, Seams } from '../../seams/index.js';
import type { SessionStore } from '../../session/index.js';
import type { ToolRegistryCore } from '../../tools/index.js';

/** Options of `createAgent`. */
export interface AgentOptions {
  seams: Seams;
  tools: ToolRegistryCore;
  model: ModelAdapter;
  /** The agent (and session) id; a store with a session id supplies it. */
  id?: string;
  /** Where the log goes; `memoryStore()` when absent. A store with earlier events resumes the session. */
  store?: SessionStore;
  /**
   * Answers `ask` decisions; the registry's channel (`seams.setApproval`) when absent. `'defer'` defers every
   * ask (someone answers later with `resolveApproval`); it needs a store that outlives the process.
   */
  approval?: ApprovalChannel | 'defer';
  /** Rolling pool size of a parallel tool group (default 10). */
  maxParallelToolCalls?: number;
  /** How long a cancelled tool body and the post-cancel `agent/post-step` may take (default 5000 ms). */
  cancelGraceMs?: number;
  /** How long `agent/session-start` may delay the first turn (default 60000 ms). */
  sessionStartTimeoutMs?: number;
  /** Retries a `retry` request-error decision may buy per failing streak (default 3). */
  maxRequestRetries?: number;
  /** The system prompt: a string, or `({ agent, turn, step }) => string | Promise<string>` run before every request. */
  instructions?: Instructions;
  /** Model settings (temperature, maxOutputTokens, toolChoice, …); they override the adapter's per key. */
  modelSettings?: ModelSettings;
  /** Steps a turn may take before it ends `max-steps` (default 100). */
  maxStepsPerTurn?: number;
  /** Working directory of the session (default `process.cwd()`). */
  cwd?: string;
  /** Receives failures nobody else can take (the root actor's errors, late session-start listeners). */
  logger?: SeamLogger;
  /** XState's inspection observer for the agent's actor system (e.g. `createInspectionLog(path).inspect`). */
  inspect?: (event: InspectionEvent) => void;
  /**
   * What a resume does with the items its log shows accepted but never run: `'queue'` (default) re-queues them to
   * run before the next delivery, `'run'` runs them at once.
   */
  resumePending?: 'queue' | 'run';
}

/** `AgentOptions` with every default filled in. */
export interface ResolvedAgentOptions {
  readonly seams: Seams;
  readonly tools: ToolRegistryCore;
  readonly model: ModelAdapter;
  readonly id: string | undefined;
  readonly store: SessionStore | undefined;
  readonly approval: ApprovalChannel | undefined;
  readonly maxParallelToolCalls: number;
  readonly cancelGraceMs: number;
  readonly sessionStartTimeoutMs: number;
  readonly maxRequestRetries: number;
  readonly instructions: Instructions | undefined;
  /** The adapter's settings merged with `modelSettings`. */
  readonly modelSettings: ModelSettings;
  readonly maxStepsPerTurn: number;
  readonly cwd: string;
  readonly logger: SeamLogger;
  readonly inspect: ((event: InspectionEvent) => void) | undefined;
  readonly resumePending: 'queue' | 'run';
}

/** The channel of `approval: 'defer'`: every ask waits for a later answer (approvals.md). */
const deferEveryAsk: ApprovalChannel = Object.freeze({
  request: async () => ({ outcome: 'deferred' as const }),
});

export const agentDefaults = Object.freeze({
  maxParallelToolCalls: 10,
  cancelGraceMs: 5000,
  sessionStartTimeoutMs: 60_000,
  maxRequestRetries: 3,
  maxStepsPerTurn: 100,
});

function received(value: unknown): string {
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  let text: string;
  try {
    text =
      typeof value === 'function'
        ? `[function ${value.name || 'anonymous'}]`
        : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return `\`${text}\` (${type})`;
}

function fail(option: string, expected: string, value: unknown): never {
  throw new TypeError(
    `Expected the \`${option}\` option of createAgent() to be ${expected}, got ${received(value)}`,
  );
}

function hasMethods(value: unknown, methods: readonly string[]): boolean {
  if (value === null || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  return methods.every((name) => typeof record[name] === 'function');
}

function integer(options: AgentOptions, option: keyof typeof agentDefaults, min: number): number {
  const value = options[option];
  if (value === undefined) return agentDefaults[option];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    fail(option, min > 0 ? 'a positive integer' : 'a non-negative integer', value);
  }
  return value;
}

/**
 * Validates `createAgent` options and fills the documented defaults; a bad option throws a
 * `TypeError` naming the option, what was expected and what was received.
 * @param rawOptions the options as given
 */
export function resolveAgentOptions(rawOptions: unknown): ResolvedAgentOptions {
  if (rawOptions === null || typeof rawOptions !== 'object') {
    throw new TypeError(`Expected createAgent() options to be an object, got ${received(rawOptions)}`);
  }
  const options = rawOptions as AgentOptions;
  if (!hasMethods(options.seams, ['on', 'snapshot', 'notify']))
    fail('seams', 'a registry from createSeams()', options.seams);
  if (!hasMethods(options.tools, ['get', 'schemas']))
    fail('tools', 'a tool registry from createToolRegistry()', options.tools);
  if (!hasMethods(options.model, ['request']))
    fail('model', 'a model adapter with a request() method', options.model);
  if (options.id !== undefined && (typeof options.id !== 'string' || options.id === '')) {
    fail('id', 'a non-empty string', options.id);
  }
  if (options.store !== undefined && !hasMethods(options.store, ['write', 'flush', 'close'])) {
    fail('store', 'a session store (memoryStore(), createJsonlStore() or openJsonlStore())', options.store);
  }
  if (options.approval === 'defer' && (options.store === undefined || options.store.durable !== true)) {
    throw new TypeError(
      "Expected the `store` option of createAgent() to outlive the process with `approval: 'defer'` " +
        '(a deferred approval is answered later, maybe by another process), got ' +
        (options.store === undefined
          ? 'no store (memoryStore)'
          : 'a store that keeps nothing (memoryStore)') +
        '; use createJsonlStore() or openJsonlStore()',
    );
  }
  if (
    options.approval !== undefined &&
    options.approval !== 'defer' &&
    !hasMethods(options.approval, ['request'])
  ) {
    fail('approval', "an approval channel with a request() method, or 'defer'", options.approval);
  }
  if (options.cwd !== undefined && (typeof options.cwd !== 'string' || options.cwd === '')) {
    fail('cwd', 'a non-empty string', options.cwd);
  }
  if (options.logger !== undefined && !hasMethods(options.logger, ['error'])) {
    fail('logger', 'a logger with an error() method', options.logger);
  }
  if (
    options.resumePending !== undefined &&
    options.resumePending !== 'queue' &&
    options.resumePending !== 'run'
  ) {
    fail('resumePending', "'queue' or 'run'", options.resumePending);
  }
  if (options.inspect !== undefined && typeof options.inspect !== 'function') {
    fail('inspect', 'an inspection observer function', options.inspect);
  }
  const { instructions } = options;
  if (instructions !== undefined && typeof instructions !== 'string' && typeof instructions !== 'function') {
    fail('instructions', 'a string or a function ({ agent, turn, step }) => string', instructions);
  }
  return Object.freeze({
    seams: options.seams,
    tools: options.tools,
    model: options.model,
    id: options.id,
    store: options.store,
    approval: options.approval === 'defer' ? deferEveryAsk : options.approval,
    maxParallelToolCalls: integer(options, 'maxParallelToolCalls', 1),
    cancelGraceMs: integer(options, 'cancelGraceMs', 0),
    sessionStartTimeoutMs: integer(options, 'sessionStartTimeoutMs', 0),
    maxRequestRetries: integer(options, 'maxRequestRetries', 0),
    instructions,
    // The agent's settings override the adapter's per key; both are checked here, at creation.
    modelSettings: mergeModelSettings(
      parseModelSettings(options.model.settings, 'model adapter’s `settings`'),
      parseModelSettings(options.modelSettings, 'createAgent() option `modelSettings`'),
    ),
    maxStepsPerTurn: integer(options, 'maxStepsPerTurn', 1),
    cwd: options.cwd ?? process.cwd(),
    logger: options.logger ?? options.seams.logger,
    inspect: options.inspect,
    resumePending: options.resumePending ?? 'queue',
  });
}
