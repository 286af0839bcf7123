import type { ContentBlock, JsonObject, JsonValue, RewriteRecord, ToolResult } from '../kernel/index.js';
import type { AgentHandle, ToolExecution } from '../seams/index.js';
import { toolEnvironmentOf } from '../seams/index.js';
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

/** A detached call: each input field read once, the arguments parsed, the definition snapshotted. */
export interface DetachedCall {
  readonly callId: string;
  readonly name: string;
  /** The model's input: deep-frozen JSON (a raw string when the text was not JSON; `null` when not plain JSON). */
  readonly arguments: JsonValue;
  readonly agent?: AgentHandle;
  readonly turn?: number;
  readonly step?: number;
  readonly parent?: symbol;
  readonly signal: AbortSignal;
  /** The definition registered when the call was detached. */
  readonly definition: ToolDefinition | undefined;
  /** The definition's `finalizeContent`, kept even if the tool is unregistered mid-call. */
  readonly finalize: ContentFinalizer | undefined;
  /** Set when the arguments are not plain JSON: the call fails with `INVALID_ARGS` before any policy. */
  readonly argumentsError: string | undefined;
}

/** The input a call runs with once `tools/prepare` is done: the rewrite record only when rewritten. */
export interface PreparedInput {
  readonly arguments: JsonValue;
  readonly original?: JsonObject;
  readonly rewrites?: readonly RewriteRecord[];
}

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
 * Detaches a call before any policy runs: each input field read once, the arguments parsed into a
 * detached deep-frozen copy, the definition and its finalizer snapshotted. The caller's objects are
 * never frozen or mutated.
 * @param raw the call's inputs; @param tools where the definition is looked up.
 */
export function detachToolCall(raw: RawToolCall, tools: ToolRegistryCore): DetachedCall {
  const { callId, name, arguments: rawArguments, agent, turn, step, parent, signal } = raw;
  const parsed = parseToolArguments(rawArguments);
  const definition = tools.get(name);
  const finalizer = definition?.finalizeContent;
  return {
    callId,
    name,
    arguments: parsed.ok ? parsed.value : null,
    ...(agent === undefined ? {} : { agent }),
    ...(turn === undefined ? {} : { turn }),
    ...(step === undefined ? {} : { step }),
    ...(parent === undefined ? {} : { parent }),
    signal,
    definition,
    finalize: finalizer ? (e, r) => finalizer.call(definition, e, r) : undefined,
    argumentsError: parsed.ok ? undefined : parsed.message,
  };
}

/**
 * Seals a detached call's identity from the input it will run with: a fresh token, the frozen
 * execution (with `original`/`rewrites` when rewritten). Identity is created once, here.
 * @param call the detached call; @param input the effective input (default: the model's).
 */
export function sealToolCall(call: DetachedCall, input?: PreparedInput): SealedCall {
  const { callId, name, agent, turn, step, parent, signal, definition } = call;
  const token = Symbol(`seamchart.toolCall(${callId})`);
  const exec: ToolExecution = Object.freeze({
    callId,
    name,
    arguments: input?.arguments ?? call.arguments,
    ...(agent === undefined ? {} : { agent }),
    ...(turn === undefined ? {} : { turn }),
    ...(step === undefined ? {} : { step }),
    ...(parent === undefined ? {} : { parent }),
    token,
    signal,
    ...(agent?.env === undefined ? {} : { env: toolEnvironmentOf(agent.env) }),
    ...(input?.original === undefined || input.rewrites === undefined
      ? {}
      : { original: input.original, rewrites: input.rewrites }),
  });
  if (definition) definitions.set(token, definition);
  return {
    exec,
    known: definition !== undefined,
    finalize: call.finalize,
    argumentsError: call.argumentsError,
  };
}

/**
 * Seals a call's identity before any policy runs, with the model's input: detach then seal.
 * @param raw the call's inputs; @param tools where the definition is looked up.
 */
export function sealExecution(raw: RawToolCall, tools: ToolRegistryCore): SealedCall {
  return sealToolCall(detachToolCall(raw, tools));
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
