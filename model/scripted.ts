import type { ContentBlock, ModelDelta, ToolSchema } from '../kernel/index.js';
import { createAbortedError, waitFor, waitForAbort } from './abort.js';
import { parseScript, type ScriptReplyStep, type ScriptStep, type ScriptToolCall } from './script.js';
import { type ModelSettings, parseModelSettings } from './settings.js';
import {
  type ModelAdapter,
  ModelErrorCode,
  type ModelMessage,
  type ModelRequest,
  ModelRequestError,
  type ModelStep,
} from './types.js';

/** A request as the scripted model saw it, without the live signal. */
export interface RecordedModelRequest {
  readonly messages: readonly ModelMessage[];
  readonly tools: readonly ToolSchema[];
  /** The system prompt the request carried (instructions are not in the log, so this is where tests see them). */
  readonly instructions?: string;
  readonly settings?: ModelSettings;
}

/** Options of `scriptedModel`. */
export interface ScriptedModelOptions {
  /** Adapter default settings (the agent's `modelSettings` override them); validated. */
  readonly settings?: ModelSettings;
}

/** A model adapter that replays a script and records what it was asked. */
export interface ScriptedModel extends ModelAdapter {
  /** Every request so far, in order (also those that failed or were aborted). */
  readonly requests: readonly RecordedModelRequest[];
}

/**
 * Creates a deterministic model that answers request `i` with script step `i`.
 * @param rawSteps - the script; validated here (it may come from JSON), so a bad script throws before anything runs
 * @throws TypeError naming the bad step's index and the problem
 * @example
 * const model = scriptedModel([
 *   { toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'a' } }] },
 *   { text: 'done' },
 * ]);
 * const agent = createAgent({ seams, tools, model });
 * // later: model.requests[1].messages ends with the tool result of c1
 */
export function scriptedModel(
  rawSteps: readonly ScriptStep[],
  options: ScriptedModelOptions = {},
): ScriptedModel {
  const steps = parseScript(rawSteps);
  const settings = parseModelSettings(options.settings, 'scriptedModel() option `settings`');
  const requests: RecordedModelRequest[] = [];
  return {
    requests,
    settings,
    async request(request: ModelRequest): Promise<ModelStep> {
      const index = requests.length;
      requests.push(snapshotRequest(request));
      const step = steps[index];
      if (step === undefined) {
        throw new ModelRequestError({
          message: `The model script ran out: request ${index + 1} found no step at index ${index} (the script has ${steps.length}); add one step per model request`,
          code: ModelErrorCode.scriptExhausted,
        });
      }
      return answerStep(step, request);
    },
  };
}

async function answerStep(step: ScriptStep, request: ModelRequest): Promise<ModelStep> {
  const { signal } = request;
  if (signal.aborted) throw createAbortedError(signal);
  if (step.delayMs !== undefined && step.delayMs > 0) await waitFor(step.delayMs, signal);
  if ('hang' in step) return waitForAbort(signal);
  if ('error' in step) throw new ModelRequestError(step.error);
  if (request.onDelta) await streamStep(step, request.onDelta, signal);
  return toModelStep(step);
}

/** Streams a reply the way a server would: reasoning, text in chunks, then each call's arguments. */
async function streamStep(
  step: ScriptReplyStep,
  onDelta: (delta: ModelDelta) => void,
  signal: AbortSignal,
): Promise<void> {
  const deltas: ModelDelta[] = [];
  if (step.reasoning) {
    for (const text of splitWords(step.reasoning)) deltas.push({ kind: 'reasoning', text });
  }
  if (step.text) {
    for (const text of step.chunks ?? splitWords(step.text)) {
      if (text !== '') deltas.push({ kind: 'text', text });
    }
  }
  for (const [index, call] of (step.toolCalls ?? []).entries()) {
    const args = toArgumentsText(call.arguments);
    const half = Math.ceil(args.length / 2);
    deltas.push({
      kind: 'tool-call',
      index,
      id: call.id,
      name: call.name,
      argumentsDelta: args.slice(0, half),
    });
    if (half < args.length) deltas.push({ kind: 'tool-call', index, argumentsDelta: args.slice(half) });
  }
  for (const [position, delta] of deltas.entries()) {
    if (position > 0 && step.chunkDelayMs) await waitFor(step.chunkDelayMs, signal);
    if (signal.aborted) throw createAbortedError(signal);
    onDelta(delta);
  }
}

/** Splits before each run of whitespace that precedes a word: joined, the pieces are the text. */
function splitWords(text: string): string[] {
  return text.split(/(?=\s+\S)/);
}

function toArgumentsText(args: ScriptToolCall['arguments']): string {
  return typeof args === 'string' ? args : JSON.stringify(args);
}

function toModelStep(step: ScriptReplyStep): ModelStep {
  const content: ContentBlock[] = [];
  if (step.reasoning) content.push({ type: 'reasoning', text: step.reasoning });
  if (step.text) content.push({ type: 'text', text: step.text });
  for (const call of step.toolCalls ?? []) {
    const args = toArgumentsText(call.arguments);
    content.push({ type: 'tool-call', id: call.id, name: call.name, arguments: args });
  }
  const finish = step.finish ?? (step.toolCalls?.length ? 'tool-calls' : 'stop');
  return step.usage === undefined ? { content, finish } : { content, finish, usage: { ...step.usage } };
}

// The turn derives messages incrementally; a frozen array cannot change later, so it is kept as is (O(1)).
function snapshotRequest({ messages, tools, instructions, settings }: ModelRequest): RecordedModelRequest {
  return {
    messages: Object.isFrozen(messages) ? messages : [...messages],
    tools: Object.isFrozen(tools) ? tools : [...tools],
    ...(instructions === undefined ? {} : { instructions }),
    ...(settings === undefined ? {} : { settings }),
  };
}
