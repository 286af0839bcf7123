import type { ContentBlock, ToolCallBlock } from '../seams/schemas.js';
import type { ModelMessage, ModelRequest, ToolSchema } from './types.js';

/** A chat-completions message as the OpenAI wire format spells it. */
export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

interface ChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The JSON body of a streaming `POST /chat/completions`. */
export interface ChatCompletionBody {
  model: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  stream: true;
  stream_options: { include_usage: true };
}

/** Maps a model request to the chat-completions body (reasoning blocks are never sent back). */
export function toChatCompletionBody(request: ModelRequest, model: string): ChatCompletionBody {
  const body: ChatCompletionBody = {
    model,
    messages: request.messages.map(toChatMessage),
    stream: true,
    stream_options: { include_usage: true },
  };
  // OpenAI rejects an empty `tools` array, so it is left out when there are none.
  if (request.tools.length > 0) body.tools = request.tools.map(toChatTool);
  return body;
}

function toChatMessage(message: ModelMessage): ChatMessage {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: joinText(message.content) };
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

function joinText(content: readonly ContentBlock[]): string {
  let text = '';
  for (const block of content) {
    if (block.type === 'text') text = text === '' ? block.text : `${text}\n${block.text}`;
  }
  return text;
}
