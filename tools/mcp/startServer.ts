import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describeThrown } from '../../kernel/index.js';
import { ownerMarkerName } from '../../process/index.js';
import type { ToolDefinition } from '../types.js';
import { defineMcpTool, type ListedMcpTool } from './mcpTool.js';
import type { McpServerFailure, McpStdioServer } from './types.js';

/** What starting one server needs (connect.ts's options, resolved). */
export interface StartOptions {
  readonly cwd?: string | undefined;
  readonly timeoutMs: number;
  readonly clientInfo: { name: string; version: string };
  /** The server's new tool list after its `notifications/tools/list_changed` (or why it could not be read). */
  onToolsChanged(server: string, tools: ToolDefinition[] | Error): void;
}

/** A running server: its tools now, and how to end it. */
export interface StartedServer {
  readonly name: string;
  readonly tools: ToolDefinition[];
  close(): Promise<void>;
}

const STDERR_TAIL = 2000;

/**
 * Starts one MCP server over stdio (this module, and with it the MCP SDK, is loaded on first use).
 * @returns the server, or why it failed (the process is ended then)
 */
export async function startMcpServer(
  server: McpStdioServer,
  options: StartOptions,
): Promise<StartedServer | { failure: McpServerFailure }> {
  const transport = new StdioClientTransport({
    command: server.command,
    args: [...(server.args ?? [])],
    // The server sees the agent's environment plus its own entries, as Claude Code starts them.
    env: { ...definedEnv(process.env), [ownerMarkerName]: '1', ...(server.env ?? {}) },
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    // Piped, never inherited: under `seamchart acp` nothing but protocol may reach our stdout.
    stderr: 'pipe',
  });
  let stderrTail = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
  });
  const client = new Client(options.clientInfo, { capabilities: {} });
  // A call whose server changed its tools returns after the new list is read: the next step sees it.
  let refreshing: Promise<void> = Promise.resolve();
  const define = (listed: ListedMcpTool): ToolDefinition =>
    defineMcpTool(server.name, listed, client, () => refreshing);
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    refreshing = listAllTools(client, options.timeoutMs).then(
      (listed) => options.onToolsChanged(server.name, listed.map(define)),
      (error: unknown) =>
        options.onToolsChanged(
          server.name,
          new Error(
            `MCP server "${server.name}" changed its tools but listing them failed: ${describeThrown(error)}`,
          ),
        ),
    );
  });
  try {
    await client.connect(transport, { timeout: options.timeoutMs });
    const listed = await listAllTools(client, options.timeoutMs);
    return { name: server.name, tools: listed.map(define), close: () => client.close().catch(() => {}) };
  } catch (error) {
    await client.close().catch(() => {});
    const detail =
      stderrTail.trim() === '' ? '' : ` (stderr: ${stderrTail.trim().split('\n').slice(-3).join(' | ')})`;
    return {
      failure: {
        server: server.name,
        message: `MCP server "${server.name}" (${server.command}) failed to start: ${describeThrown(error)}${detail}`,
      },
    };
  }
}

async function listAllTools(client: Client, timeoutMs: number): Promise<ListedMcpTool[]> {
  const tools: ListedMcpTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}

function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}
