import type * as acp from '@agentclientprotocol/sdk';
import type { ContentBlock } from '../../kernel/index.js';

/** `tool/call` data as logged. */
export interface LoggedToolCall {
  readonly turn: number;
  readonly step: number;
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
}

/** `tool/result` data as logged. */
export interface LoggedToolResult {
  readonly turn: number;
  readonly step: number;
  readonly callId: string;
  readonly content: readonly ContentBlock[];
  readonly isError: boolean;
}

export type KindOf = (toolName: string) => acp.ToolKind;

const TITLE_ARGUMENT_CHARS = 60;

/** Unique within the session, as ACP requires: model call ids repeat across steps. */
export function toToolCallId(turn: number, step: number, callId: string): string {
  return `${turn}.${step}.${callId}`;
}

/** The model's raw argument text as JSON when it parses, else the text itself. */
export function parseRawInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `Name: first argument` — what an editor shows on the tool-call row. */
export function describeToolCall(name: string, rawInput: unknown): string {
  const first =
    rawInput !== null && typeof rawInput === 'object' && !Array.isArray(rawInput)
      ? Object.values(rawInput).find((value) => typeof value === 'string')
      : undefined;
  if (typeof first !== 'string' || first === '') return name;
  const line = first.split('\n')[0] ?? '';
  return `${name}: ${line.length > TITLE_ARGUMENT_CHARS ? `${line.slice(0, TITLE_ARGUMENT_CHARS)}…` : line}`;
}

/** The pending `tool_call` for a logged call (also the permission request's tool call). */
export function toToolCall(call: LoggedToolCall, kindOf: KindOf): acp.ToolCall {
  const rawInput = parseRawInput(call.arguments);
  return {
    toolCallId: toToolCallId(call.turn, call.step, call.callId),
    title: describeToolCall(call.name, rawInput),
    kind: kindOf(call.name),
    status: 'pending',
    rawInput,
  };
}

/** The final `tool_call_update` for a logged result. */
export function toToolCallEnd(result: LoggedToolResult): acp.ToolCallUpdate {
  return {
    toolCallId: toToolCallId(result.turn, result.step, result.callId),
    status: result.isError ? 'failed' : 'completed',
    content: result.content.flatMap((block) => {
      const content = toAcpBlock(block);
      return content === undefined ? [] : [{ type: 'content' as const, content }];
    }),
  };
}

/** A result block as ACP content: text, image and resource link; reasoning and tool calls are not results. */
function toAcpBlock(block: ContentBlock): acp.ContentBlock | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return { type: 'image', data: block.data, mimeType: block.mimeType };
    case 'resource-link':
      return {
        type: 'resource_link',
        uri: block.uri,
        name: block.name,
        ...(block.title === undefined ? {} : { title: block.title }),
        ...(block.description === undefined ? {} : { description: block.description }),
        ...(block.mimeType === undefined ? {} : { mimeType: block.mimeType }),
      };
    default:
      return undefined;
  }
}
