import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import { type ContentBlock, describeThrown, type JsonValue } from '../../kernel/index.js';
import { defineTool } from '../defineTool.js';
import type { ToolDefinition } from '../types.js';
import { mcpToolName } from './toolName.js';

/** A tool as an MCP server lists it. */
export interface ListedMcpTool {
  name: string;
  description?: string | undefined;
  inputSchema: { type: 'object'; [key: string]: unknown };
  annotations?: { readOnlyHint?: boolean | undefined; destructiveHint?: boolean | undefined } | undefined;
}

// setTimeout's ceiling: tool time limits are seamchart's (`timeoutMs`, plugins.timeout), not the MCP client's.
const NO_CLIENT_TIMEOUT = 2 ** 31 - 1;

/**
 * The seamchart definition of one MCP tool: its JSON Schema becomes the zod parameters, a call goes
 * to the server, and an `isError` result is the tool's failure.
 * @param server the server's configured name
 * @param listed the tool as listed
 * @param client the connected client
 * @param toolsSettled resolves once a tool-list change the server announced during the call is read
 */
export function defineMcpTool(
  server: string,
  listed: ListedMcpTool,
  client: Client,
  toolsSettled: () => Promise<void> = () => Promise.resolve(),
): ToolDefinition {
  return defineTool({
    name: mcpToolName(server, listed.name),
    description: listed.description ?? `${listed.name} (MCP server "${server}")`,
    parameters: toParameters(listed.inputSchema),
    kind: listed.annotations?.readOnlyHint ? 'read' : 'other',
    async execute(args, exec) {
      const result = await client
        .callTool({ name: listed.name, arguments: args as Record<string, unknown> }, undefined, {
          signal: exec.signal,
          timeout: NO_CLIENT_TIMEOUT,
        })
        .catch((error: unknown) => {
          // A server that exited answers "Not connected": say which server and tool.
          throw new Error(`MCP server "${server}" could not run ${listed.name}: ${describeThrown(error)}`, {
            cause: error,
          });
        });
      await toolsSettled();
      const blocks = toContentBlocks(result.content);
      const text = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
      if (result.isError) throw new Error(text || `MCP tool ${listed.name} failed`);
      // Text alone stays a string (what hooks and renderers always saw); images and links keep their blocks.
      return blocks.every((block) => block.type === 'text') ? text : (blocks as JsonValue);
    },
    output: {
      render: (value: JsonValue) =>
        typeof value === 'string' ? [{ type: 'text', text: value }] : (value as unknown as ContentBlock[]),
    },
  });
}

// A schema zod cannot rebuild still gets an object, so the call reaches the server (which validates).
function toParameters(schema: ListedMcpTool['inputSchema']): z.ZodType {
  try {
    const parameters = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    return (z.toJSONSchema(parameters) as { type?: unknown }).type === 'object'
      ? parameters
      : z.looseObject({});
  } catch {
    return z.looseObject({});
  }
}

/** A content block of an MCP tool result, as far as seamchart reads it. */
interface McpBlock {
  type?: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  title?: string;
  description?: string;
  resource?: { uri?: string };
}

/** MCP result content as seamchart blocks: text, images and resource links kept; audio and embedded resources named in a text line. */
function toContentBlocks(content: unknown): ContentBlock[] {
  if (!Array.isArray(content)) return [];
  return content.map((block: McpBlock): ContentBlock => {
    if (block.type === 'text') return { type: 'text', text: block.text ?? '' };
    if (block.type === 'image' && typeof block.data === 'string' && typeof block.mimeType === 'string')
      return { type: 'image', mimeType: block.mimeType, data: block.data };
    if (block.type === 'resource_link' && typeof block.uri === 'string')
      return {
        type: 'resource-link',
        uri: block.uri,
        name: block.name ?? block.uri,
        ...(block.title === undefined ? {} : { title: block.title }),
        ...(block.description === undefined ? {} : { description: block.description }),
        ...(block.mimeType === undefined ? {} : { mimeType: block.mimeType }),
      };
    if (block.type === 'resource') return { type: 'text', text: `[resource ${block.resource?.uri ?? ''}]` };
    return {
      type: 'text',
      text: `[${block.type ?? 'unknown'} content${block.mimeType ? ` ${block.mimeType}` : ''}]`,
    };
  });
}
