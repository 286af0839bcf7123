import type { Disposer } from '../../seams/index.js';
import { createDisposer } from '../../seams/index.js';
import type { ToolDefinition, ToolRegistryCore } from '../types.js';
import { assertDistinctServers } from './servers.js';
import type { StartedServer, StartOptions } from './startServer.js';
import type { McpServerFailure, McpStdioServer } from './types.js';

/** The tools of the MCP servers that started, and the ones that did not. */
export interface McpConnection {
  /** `mcp__<server>__<tool>` definitions as the servers list them now. */
  readonly tools: readonly ToolDefinition[];
  readonly failures: readonly McpServerFailure[];
  /**
   * Registers the tools in `registry` and keeps each server's tools there current when the server
   * sends `tools/list_changed`; a tool whose name is taken is left out and reported.
   * @returns removes this connection's tools from the registry
   */
  register(registry: ToolRegistryCore, report?: (message: string) => void): Disposer;
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

/** One registry the connection keeps current: the disposers of each server's registered tools. */
interface Attachment {
  readonly registry: ToolRegistryCore;
  readonly report: (message: string) => void;
  readonly byServer: Map<string, Disposer[]>;
}

/**
 * Starts MCP servers over stdio and lists their tools; a server that fails is reported, not thrown.
 * Servers whose tool names would collide (`my.fs` and `my_fs`) are refused (`McpConfigError`)
 * before any starts. The MCP SDK is loaded on the first call.
 * @param servers the stdio servers to start
 * @param options cwd, start timeout, client info
 * @example
 * const mcp = await connectMcpServers([{ name: 'notes', command: 'node', args: ['notes.js'] }]);
 * mcp.register(tools);
 * await mcp.close(); // when the session ends
 */
export async function connectMcpServers(
  servers: readonly McpStdioServer[],
  options: ConnectMcpOptions = {},
): Promise<McpConnection> {
  assertDistinctServers(servers, 'connectMcpServers');
  const current = new Map<string, ToolDefinition[]>();
  const attachments = new Set<Attachment>();
  const attachServer = (attachment: Attachment, server: string): void => {
    for (const dispose of attachment.byServer.get(server) ?? []) dispose();
    const disposers: Disposer[] = [];
    for (const tool of current.get(server) ?? []) {
      try {
        disposers.push(attachment.registry.register(tool));
      } catch (error) {
        attachment.report(`MCP server "${server}": tool ${tool.name} left out: ${(error as Error).message}`);
      }
    }
    attachment.byServer.set(server, disposers);
  };
  const onToolsChanged = (server: string, tools: ToolDefinition[] | Error): void => {
    if (tools instanceof Error) {
      for (const attachment of attachments) attachment.report(tools.message);
      return;
    }
    current.set(server, tools);
    for (const attachment of attachments) attachServer(attachment, server);
  };

  const outcomes = await startServers(servers, {
    cwd: options.cwd,
    timeoutMs: options.startTimeoutMs ?? 10_000,
    clientInfo: options.clientInfo ?? { name: 'seamchart', version: '0' },
    onToolsChanged,
  });
  const started = outcomes.filter((outcome): outcome is StartedServer => !('failure' in outcome));
  for (const server of started) current.set(server.name, server.tools);
  let closing: Promise<void> | undefined;
  return Object.freeze({
    get tools() {
      return Object.freeze([...current.values()].flat());
    },
    failures: Object.freeze(outcomes.flatMap((outcome) => ('failure' in outcome ? [outcome.failure] : []))),
    register(registry: ToolRegistryCore, report: (message: string) => void = () => {}) {
      const attachment: Attachment = { registry, report, byServer: new Map() };
      attachments.add(attachment);
      for (const server of current.keys()) attachServer(attachment, server);
      return createDisposer(() => {
        attachments.delete(attachment);
        for (const disposers of attachment.byServer.values()) for (const dispose of disposers) dispose();
      });
    },
    close() {
      closing ??= Promise.all(started.map((server) => server.close())).then(() => {});
      return closing;
    },
  });
}

/** Starts every server; with none, the MCP SDK is not even loaded (a run without MCP never loads it). */
async function startServers(
  servers: readonly McpStdioServer[],
  options: StartOptions,
): Promise<(StartedServer | { failure: McpServerFailure })[]> {
  if (servers.length === 0) return [];
  const { startMcpServer } = await import('./startServer.js');
  return Promise.all(servers.map((server) => startMcpServer(server, options)));
}
