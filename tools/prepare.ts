import type { JsonObject, JsonValue, RewriteRecord, ToolResult } from '../kernel/index.js';
import { describeReceived } from '../kernel/index.js';
import type { AcceptRewrite, DispatchScope, FoldOutcome, SeamSet } from '../seams/index.js';
import { formatIssues } from '../seams/index.js';
import { deepFreezeJson, formatJsonFailure, snapshotJson } from './json.js';
import { createFailureResult } from './results.js';
import type { DetachedCall, PreparedInput } from './seal.js';
import type { ToolDefinition } from './types.js';

/** What `tools/prepare` made of one call: the input to seal, and the failure that ends the call, if any. */
export type PrepareOutcome =
  | { readonly kind: 'prepared'; readonly input: PreparedInput }
  /** `INVALID_ARGS` (a rewrite the tool refuses, naming its listener) or `PIPELINE_ERROR` (a throw). */
  | { readonly kind: 'failed'; readonly input: PreparedInput; readonly result: ToolResult };

/** The `tool/call` fields of a call: what runs (`arguments`), and when rewritten the model's text and who rewrote. */
export interface ToolCallRecord {
  readonly arguments: string;
  readonly original?: string;
  readonly rewrites?: readonly RewriteRecord[];
}

/**
 * Whether a call takes part in `tools/prepare`: only a known tool whose arguments parse as a plain
 * JSON object; anything else keeps today's path (`UNKNOWN_TOOL`, `INVALID_ARGS`).
 * @param call the detached call
 */
export function isPreparable(call: DetachedCall): call is DetachedCall & { readonly arguments: JsonObject } {
  return call.definition !== undefined && call.argumentsError === undefined && isJsonObject(call.arguments);
}

/**
 * The check every rewrite passes before the next listener sees it: plain JSON, detached and frozen,
 * and valid for the tool's parameter schema (the definition snapshotted with the call).
 * @param definition the tool the call was detached with
 */
export function createRewriteCheck(definition: ToolDefinition): AcceptRewrite {
  return (rawArguments) => {
    const snapshot = snapshotJson(rawArguments, 'arguments');
    if (!snapshot.ok)
      return { ok: false, message: `arguments that are not plain JSON: ${formatJsonFailure(snapshot)}` };
    if (!isJsonObject(snapshot.value)) {
      return {
        ok: false,
        message: `arguments that are not a JSON object, got ${describeReceived(snapshot.value)}`,
      };
    }
    const parsed = definition.parameters.safeParse(snapshot.value);
    if (parsed.success) return { ok: true, value: snapshot.value as JsonObject };
    const detail = formatIssues(parsed.error.issues, snapshot.value);
    return { ok: false, message: `invalid arguments for tool "${definition.name}": ${detail}` };
  };
}

/**
 * Runs the `tools/prepare` fold for one call and turns its outcome into the input to seal: the last
 * rewrite replaces the whole input; a refused rewrite is `INVALID_ARGS` and a throw `PIPELINE_ERROR`,
 * both naming the listener (the model is never blamed) and keeping the rewrites applied before it.
 * @param seams the run's listener snapshot
 * @param call a preparable detached call (see `isPreparable`)
 * @param scope where the dispatch happens (agent, turn, call id, the phase's signal)
 */
export async function prepareToolInput(
  seams: SeamSet,
  call: DetachedCall & { readonly arguments: JsonObject },
  scope: DispatchScope,
): Promise<PrepareOutcome> {
  const { callId, name, agent, turn, step, signal, definition } = call;
  const outcome = await seams.fold(
    {
      callId,
      name,
      original: call.arguments,
      ...(agent === undefined ? {} : { agent }),
      ...(turn === undefined ? {} : { turn }),
      ...(step === undefined ? {} : { step }),
      signal,
    },
    createRewriteCheck(definition!),
    scope,
  );
  const input = toPreparedInput(call.arguments, outcome);
  if (outcome.ok) return { kind: 'prepared', input };
  const code = outcome.error.code === 'INVALID_REWRITE' ? 'INVALID_ARGS' : 'PIPELINE_ERROR';
  return { kind: 'failed', input, result: createFailureResult(code, outcome.error.message) };
}

/**
 * The `tool/call` fields for a call: the model's raw text when nothing rewrote it; otherwise the
 * effective input as JSON text, the model's text as `original`, and who rewrote it.
 * @param modelArguments the model's raw arguments (text from the model; an object from a direct caller)
 * @param input the prepared input, once known
 */
export function describeToolCallRecord(modelArguments: unknown, input?: PreparedInput): ToolCallRecord {
  const raw = typeof modelArguments === 'string' ? modelArguments : stringifyArguments(modelArguments);
  if (input?.rewrites === undefined) return { arguments: raw };
  return { arguments: JSON.stringify(input.arguments), original: raw, rewrites: input.rewrites };
}

function toPreparedInput(original: JsonObject, outcome: FoldOutcome): PreparedInput {
  if (outcome.steps.length === 0) return { arguments: original };
  return {
    arguments: outcome.arguments,
    original,
    rewrites: deepFreezeJson(
      outcome.steps.map(({ by, reason }) => (reason === undefined ? { by } : { by, reason })),
    ),
  };
}

function isJsonObject(value: JsonValue): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// A direct caller's object is logged as its JSON text; one that is not JSON is logged as `{}`.
function stringifyArguments(value: unknown): string {
  const snapshot = snapshotJson(value ?? {}, 'arguments');
  return snapshot.ok ? JSON.stringify(snapshot.value) : '{}';
}
