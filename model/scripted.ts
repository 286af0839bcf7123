import type { ContentBlock } from '../seams/schemas.js';
import { createAbortedError, waitFor, waitForAbort } from './abort.js';
import { parseScript, type ScriptReplyStep, type ScriptStep } from './script.js';
import {
  type ModelAdapter,
  ModelErrorCode,
  type ModelMessage,
  type ModelRequest,
  ModelRequestError,
  type ModelStep,
  type ToolSchema,
} from './types.js';

/** A request as the scripted model saw it, without the live signal. */
export interface RecordedModelRequest {
  readonly messages: readonly ModelMessage[];
  readonly tools: readonly ToolSchema[];
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
export function scriptedModel(rawSteps: readonly ScriptStep[]): ScriptedModel {
  const steps = parseScript(rawSteps);
  const requests: RecordedModelRequest[] = [];
  return {
    requests,
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
      return answerStep(step, request.signal);
    },
  };
}

async function answerStep(step: ScriptStep, signal: AbortSignal): Promise<ModelStep> {
  if (signal.aborted) throw createAbortedError(signal);
  if (step.delayMs !== undefined && step.delayMs > 0) await waitFor(step.delayMs, signal);
  if ('hang' in step) return waitForAbort(signal);
  if ('error' in step) throw new ModelRequestError(step.error);
  return toModelStep(step);
}

function toModelStep(step: ScriptReplyStep): ModelStep {
  const content: ContentBlock[] = [];
  if (step.reasoning) content.push({ type: 'reasoning', text: step.reasoning });
  if (step.text) content.push({ type: 'text', text: step.text });
  for (const call of step.toolCalls ?? []) {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    content.push({ type: 'tool-call', id: call.id, name: call.name, arguments: args });
  }
  const finish = step.finish ?? (step.toolCalls?.length ? 'tool-calls' : 'stop');
  return step.usage === undefined ? { content, finish } : { content, finish, usage: { ...step.usage } };
}

// The turn derives messages incrementally; a frozen array cannot change later, so it is kept as is (O(1)).
function snapshotRequest({ messages, tools }: ModelRequest): RecordedModelRequest {
  return {
    messages: Object.isFrozen(messages) ? messages : [...messages],
    tools: Object.isFrozen(tools) ? tools : [...tools],
  };
}
