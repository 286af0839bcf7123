import type {
  ContentBlock,
  ImageBlock,
  JsonValue,
  ResourceLinkBlock,
  ToolCallBlock,
  ToolSchema,
} from '../kernel/index.js';
import type { ModelSettings, ToolChoice } from './settings.js';
import type { ModelMessage, ModelRequest } from './types.js';

/** A chat-completions message as the OpenAI wire format spells it. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatUserPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A part of a user message: text, or an image as a data URL. */
type ChatUserPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

interface ChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

type ChatToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

/** The JSON body of a streaming `POST /chat/completions`. */
export interface ChatCompletionBody {
  [providerOption: string]: unknown;
  model: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean;
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  stop?: string | string[];
  seed?: number;
  stream: true;
  stream_options: { include_usage: true };
}

/**
 * Maps a model request to the chat-completions body (reasoning blocks are never sent back):
 * the instructions as the first `system` message, then the settings; `extra` sits under them.
 */
export function toChatCompletionBody(
  request: ModelRequest,
  model: string,
  settings: ModelSettings = {},
): ChatCompletionBody {
  const messages = toChatMessages(request.messages);
  if (request.instructions) messages.unshift({ role: 'system', content: request.instructions });
  const body: ChatCompletionBody = {
    ...(settings.extra as Record<string, JsonValue> | undefined),
    model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (settings.temperature !== undefined) body.temperature = settings.temperature;
  if (settings.topP !== undefined) body.top_p = settings.topP;
  if (settings.maxOutputTokens !== undefined) body.max_tokens = settings.maxOutputTokens;
  if (settings.stop !== undefined) body.stop = settings.stop;
  if (settings.seed !== undefined) body.seed = settings.seed;
  // OpenAI rejects an empty `tools` array, and tool options without tools, so all are left out then.
  if (request.tools.length > 0) {
    body.tools = request.tools.map(toChatTool);
    if (settings.toolChoice !== undefined) body.tool_choice = toChatToolChoice(settings.toolChoice);
    if (settings.parallelToolCalls !== undefined) body.parallel_tool_calls = settings.parallelToolCalls;
  }
  return body;
}

function toChatToolChoice(choice: ToolChoice): ChatToolChoice {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

/**
 * The messages in order; images a tool returned follow its run of tool messages as one user message
 * of image parts (a `tool` message holds text only, and no user message may split a run of them).
 */
function toChatMessages(messages: readonly ModelMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let held: ChatUserPart[] = [];
  const flush = (): void => {
    if (held.length > 0) out.push({ role: 'user', content: held });
    held = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flush();
    out.push(toChatMessage(message));
    if (message.role !== 'tool') continue;
    const images = message.content.filter((block): block is ImageBlock => block.type === 'image');
    if (images.length > 0)
      held.push(
        { type: 'text', text: `Images returned by tool call ${message.callId}:` },
        ...images.map(imagePart),
      );
  }
  flush();
  return out;
}

function imagePart(block: ImageBlock): ChatUserPart {
  return { type: 'image_url', image_url: { url: `data:${block.mimeType};base64,${block.data}` } };
}

function toChatMessage(message: ModelMessage): ChatMessage {
  switch (message.role) {
    case 'user': {
      const text = joinText(message.content);
      const images = message.content.filter((block): block is ImageBlock => block.type === 'image');
      if (images.length === 0) return { role: 'user', content: text };
      return {
        role: 'user',
        content: [...(text === '' ? [] : [{ type: 'text' as const, text }]), ...images.map(imagePart)],
      };
    }
    case 'tool':
      return { role: 'tool', tool_call_id: message.callId, content: joinText(message.content) };
    case 'assistant': {
      const calls = message.content.filter((block): block is ToolCallBlock => block.type === 'tool-call');
      const text = joinText(message.content);
      if (calls.length === 0) return { role: 'assistant', content: text };
      // With tool calls and no text, `null` is what the servers themselves answer and accept back.
      return { role: 'assistant', content: text === '' ? null : text, tool_calls: calls.map(toChatToolCall) };
    }
  }
}

function toChatToolCall(block: ToolCallBlock): ChatToolCall {
  return { id: block.id, type: 'function', function: { name: block.name, arguments: block.arguments } };
}

function toChatTool(tool: ToolSchema): ChatTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

/** The text the model reads: text blocks, a line per image (sent as a part) and per resource link. */
function joinText(content: readonly ContentBlock[]): string {
  let text = '';
  for (const block of content) {
    const piece =
      block.type === 'text'
        ? block.text
        : block.type === 'image'
          ? `[${block.mimeType} image: attached below]`
          : block.type === 'resource-link'
            ? describeLink(block)
            : undefined;
    if (piece !== undefined) text = text === '' ? piece : `${text}\n${piece}`;
  }
  return text;
}

function describeLink(block: ResourceLinkBlock): string {
  const about = [block.name, ...(block.mimeType === undefined ? [] : [block.mimeType])].join(', ');
  const label = block.title === undefined ? about : `${block.title} (${about})`;
  return `[resource link] ${label}: ${block.uri}${block.description === undefined ? '' : ` — ${block.description}`}`;
}
