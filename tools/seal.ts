import { toolEnvironmentOf } from '../seams/environment.js';
import type { ContentBlock, JsonValue, ToolResult } from '../seams/schemas.js';
import type { AgentHandle, ToolExecution } from '../seams/types.js';
import { formatJsonFailure, snapshotJson } from './json.js';
import type { ToolDefinition, ToolRegistryCore } from './types.js';

/** The inputs of one call, before sealing: each field is read exactly once. */
export interface RawToolCall {
  readonly callId: string;
  readonly name: string;
  /** The model's raw JSON text, or an object from a direct caller. */
  readonly arguments: unknown;
  readonly agent?: AgentHandle | undefined;
  readonly turn?: number | undefined;
  readonly step?: number | undefined;
  readonly parent?: symbol | undefined;
  readonly signal: AbortSignal;
}

export type ContentFinalizer = (exec: ToolExecution, result: ToolResult) => ContentBlock[] | undefined;

/** A sealed call: the frozen execution plus what was snapshotted from the definition. */
export interface SealedCall {
  readonly exec: ToolExecution;
  /** Whether the tool was registered when the call was sealed. */
  readonly known: boolean;
  /** The definition's `finalizeContent`, kept even if the tool is unregistered mid-call. */
  readonly finalize: ContentFinalizer | undefined;
  /** Set when the arguments are not plain JSON: the call fails with `INVALID_ARGS` before any policy. */
  readonly argumentsError: string | undefined;
}

// Keyed by token so wrappers (e.g. `plugins.timeout`) can find the definition a call was sealed with.
const definitions = new WeakMap<symbol, ToolDefinition>();

/**
 * Seals a call's identity before any policy runs: detached deep-frozen arguments, a fresh token,
 * the finalizer snapshot. The caller's objects are never frozen or mutated.
 * @param raw the call's inputs; @param tools where the definition is looked up.
 */
export function sealExecution(raw: RawToolCall, tools: ToolRegistryCore): SealedCall {
  const { callId, name, arguments: rawArguments, agent, turn, step, parent, signal } = raw;
  const parsed = parseToolArguments(rawArguments);
  const token = Symbol(`seamchart.toolCall(${callId})`);
  const exec: ToolExecution = Object.freeze({
    callId,
    name,
    arguments: parsed.ok ? parsed.value : null,
    ...(agent === undefined ? {} : { agent }),
    ...(turn === undefined ? {} : { turn }),
    ...(step === undefined ? {} : { step }),
    ...(parent === undefined ? {} : { parent }),
    token,
    signal,
    ...(agent?.env === undefined ? {} : { env: toolEnvironmentOf(agent.env) }),
  });
  const definition = tools.get(name);
  if (definition) definitions.set(token, definition);
  const finalizer = definition?.finalizeContent;
  return {
    exec,
    known: definition !== undefined,
    finalize: finalizer ? (e, r) => finalizer.call(definition, e, r) : undefined,
    argumentsError: parsed.ok ? undefined : parsed.message,
  };
}

/** The definition a call was sealed with (by the execution's token), if the tool was known. */
export function definitionAtSeal(exec: Pick<ToolExecution, 'token'>): ToolDefinition | undefined {
  return definitions.get(exec.token);
}

/**
 * Parses raw arguments: empty text → `{}`; JSON text → its value; other text stays the raw string
 * (it then fails schema validation); objects are snapshotted as plain JSON.
 */
export function parseToolArguments(
  raw: unknown,
): { ok: true; value: JsonValue } | { ok: false; message: string } {
  let candidate = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return { ok: true, value: Object.freeze({}) };
    try {
      candidate = JSON.parse(raw);
    } catch {
      return { ok: true, value: raw };
    }
  }
  const snapshot = snapshotJson(candidate, 'arguments');
  if (snapshot.ok) return snapshot;
  return { ok: false, message: `Arguments are not plain JSON: ${formatJsonFailure(snapshot)}` };
}
