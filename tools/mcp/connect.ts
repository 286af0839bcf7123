import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describeThrown } from '../../kernel/index.js';
import { ownerMarkerName } from '../../process/index.js';
import type { ToolDefinition } from '../types.js';
import { defineMcpTool } from './mcpTool.js';
import type { McpServerFailure, McpStdioServer } from './types.js';

/** The tools of the MCP servers that started, and the ones that did not. */
export interface McpConnection {
  /** `mcp__<server>__<tool>` definitions, ready for `tools.register`. */
  readonly tools: readonly ToolDefinition[];
  readonly failures: readonly McpServerFailure[];
  /** Ends every server process (idempotent). */
  close(): Promise<void>;
}

export interface ConnectMcpOptions {
  /** Working directory of the server processes. */
  cwd?: string;
  /** How long a server may take to start and list its tools (default 10000 ms). */
  startTimeoutMs?: number;
  /** The client name and version a server sees. */
  clientInfo?: { name: string; version: string };
}

const STDERR_TAIL = 2000;

/**
 * Starts MCP servers over stdio and lists their tools; a server that fails is reported, not thrown.
 * @param servers the stdio servers to start
 * @param options cwd, start timeout, client info
 * @example
 * const mcp = await connectMcpServers([{ name: 'notes', command: 'node', args: ['notes.js'] }]);
 * for (const tool of mcp.tools) tools.register(tool);
 * await mcp.close(); // when the session ends
 */
export async function connectMcpServers(
  servers: readonly McpStdioServer[],
  options: ConnectMcpOptions = {},
): Promise<McpConnection> {
  const started = await Promise.all(servers.map((server) => startServer(server, options)));
  const clients = started.flatMap((entry) => ('client' in entry ? [entry.client] : []));
  let closing: Promise<void> | undefined;
  return Object.freeze({
    tools: Object.freeze(started.flatMap((entry) => ('tools' in entry ? entry.tools : []))),
    failures: Object.freeze(started.flatMap((entry) => ('failure' in entry ? [entry.failure] : []))),
    close() {
      closing ??= Promise.all(clients.map((client) => client.close().catch(() => {}))).then(() => {});
      return closing;
    },
  });
}

type Started = { client: Client; tools: ToolDefinition[] } | { failure: McpServerFailure };

async function startServer(server: McpStdioServer, options: ConnectMcpOptions): Promise<Started> {
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
  const client = new Client(options.clientInfo ?? { name: 'seamchart', version: '0' }, { capabilities: {} });
  const timeoutMs = options.startTimeoutMs ?? 10_000;
  try {
    await client.connect(transport, { timeout: timeoutMs });
    const listed = await listAllTools(client, timeoutMs);
    const tools = listed.map((tool) => defineMcpTool(server.name, tool, client));
    return { client, tools };
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

async function listAllTools(client: Client, timeoutMs: number) {
  const tools = [];
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
