import { z } from 'zod';
import type { ContentBlock, FinishReason, ModelDelta, Usage } from '../kernel/index.js';
import { ModelErrorCode, ModelRequestError, type ModelStep } from './types.js';

// Lenient on purpose: servers differ in which fields they send and send `null` for "none"; unknown keys are dropped.
const ToolCallDeltaSchema = z.object({
  index: z.number().int().nonnegative().nullish(),
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

const ChatChunkSchema = z.object({
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullish(),
            reasoning_content: z.string().nullish(),
            // vLLM and OpenRouter name the reasoning stream `reasoning`.
            reasoning: z.string().nullish(),
            tool_calls: z.array(ToolCallDeltaSchema).nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: z
    .object({
      prompt_tokens: z.number().nullish(),
      completion_tokens: z.number().nullish(),
      prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
      completion_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).nullish(),
      // DeepSeek reports its context-cache hits here instead of `prompt_tokens_details`.
      prompt_cache_hit_tokens: z.number().nullish(),
    })
    .nullish(),
  error: z.object({ message: z.string().optional(), code: z.unknown().optional() }).loose().nullish(),
});

const finishReasons: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  length: 'max-tokens',
};

interface PendingToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** Folds the `data` of streamed chat-completion chunks into one `ModelStep`. */
export interface ChunkAggregator {
  /** Adds one parsed SSE `data` payload (not `[DONE]`); throws `ModelRequestError` on a bad chunk. */
  add(data: string): void;
  /** Whether a `finish_reason` arrived: the step's content is complete even if the stream then drops. */
  readonly finished: boolean;
  /** The aggregated step: reasoning, text, then tool calls in index order. */
  toStep(): ModelStep;
}

/** Creates an aggregator for one streamed response; `onDelta` sees each piece of a valid chunk as it is added. */
export function createChunkAggregator(onDelta: (delta: ModelDelta) => void = () => {}): ChunkAggregator {
  let text = '';
  let reasoning = '';
  let rawFinish: string | undefined;
  let usage: Usage | undefined;
  const calls = new Map<number, PendingToolCall>();

  return {
    add(data) {
      const chunk = ChatChunkSchema.safeParse(parseJson(data));
      if (!chunk.success) throw invalidResponse(`a chunk of unexpected shape: ${truncate(data)}`);
      const { choices, usage: rawUsage, error } = chunk.data;
      if (error) {
        // Some servers report failures in-band, after the 200 status line.
        throw new ModelRequestError({
          message: error.message ?? `The model server sent an error: ${truncate(data)}`,
          code: ModelErrorCode.providerError,
        });
      }
      const choice = choices?.[0];
      const delta = choice?.delta;
      const reasoningText = delta?.reasoning_content || delta?.reasoning;
      if (reasoningText) {
        reasoning += reasoningText;
        onDelta({ kind: 'reasoning', text: reasoningText });
      }
      if (delta?.content) {
        text += delta.content;
        onDelta({ kind: 'text', text: delta.content });
      }
      for (const [position, callDelta] of (delta?.tool_calls ?? []).entries()) {
        const index = callDelta.index ?? position;
        const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
        calls.set(index, call);
        const id = callDelta.id && call.id === '' ? callDelta.id : undefined;
        const name = callDelta.function?.name && call.name === '' ? callDelta.function.name : undefined;
        const argumentsDelta = callDelta.function?.arguments ?? '';
        if (id !== undefined) call.id = id;
        if (name !== undefined) call.name = name;
        call.arguments += argumentsDelta;
        if (id !== undefined || name !== undefined || argumentsDelta !== '') {
          onDelta({
            kind: 'tool-call',
            index,
            ...(id === undefined ? {} : { id }),
            ...(name === undefined ? {} : { name }),
            argumentsDelta,
          });
        }
      }
      if (choice?.finish_reason) rawFinish = choice.finish_reason;
      if (rawUsage) usage = toUsage(rawUsage);
    },
    get finished() {
      return rawFinish !== undefined;
    },
    toStep() {
      const content: ContentBlock[] = [];
      if (reasoning !== '') content.push({ type: 'reasoning', text: reasoning });
      if (text !== '') content.push({ type: 'text', text });
      for (const index of [...calls.keys()].sort((a, b) => a - b)) {
        const call = calls.get(index)!;
        content.push({ type: 'tool-call', id: call.id, name: call.name, arguments: call.arguments });
      }
      const finish = toFinishReason(rawFinish, calls.size > 0);
      return usage === undefined ? { content, finish } : { content, finish, usage };
    },
  };
}

// Unknown reasons (`content_filter`, DeepSeek's `insufficient_system_resource`) and servers that say `stop`
// after tool calls are read from the content, since the turn acts on the tool calls either way.
function toFinishReason(rawFinish: string | undefined, hasToolCalls: boolean): FinishReason {
  const finish = rawFinish === undefined ? undefined : finishReasons[rawFinish];
  if (finish === 'max-tokens') return finish;
  return hasToolCalls ? 'tool-calls' : 'stop';
}

function toUsage(raw: NonNullable<z.infer<typeof ChatChunkSchema>['usage']>): Usage {
  const usage: Usage = {};
  const set = (key: keyof Usage, value: number | null | undefined): void => {
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0) usage[key] = value;
  };
  set('inputTokens', raw.prompt_tokens);
  set('outputTokens', raw.completion_tokens);
  set('reasoningTokens', raw.completion_tokens_details?.reasoning_tokens);
  set('cachedInputTokens', raw.prompt_tokens_details?.cached_tokens ?? raw.prompt_cache_hit_tokens);
  return usage;
}

function parseJson(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch (error) {
    throw invalidResponse(`a data line that is not JSON: ${truncate(data)}`, error);
  }
}

function invalidResponse(what: string, cause?: unknown): ModelRequestError {
  return new ModelRequestError(
    { message: `The model stream sent ${what}`, code: ModelErrorCode.invalidResponse },
    { cause },
  );
}

function truncate(data: string): string {
  return data.length > 200 ? `${data.slice(0, 197)}...` : data;
}
