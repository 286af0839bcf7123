import type { McpConnection, McpStdioServer, ToolRegistryCore } from '../index.js';
import { connectMcpServers, loadMcpConfig, McpConfigError } from '../index.js';
import { UsageError } from './command.js';

export const MCP_CONFIG_HELP =
  "stdio MCP servers in Claude Code's .mcp.json shape; their tools are mcp__<server>__<tool>";

/** The servers of `--mcp-config FILE`; a missing or malformed file, or colliding names, is bad input. */
export async function loadMcpServersFlag(file: string | undefined): Promise<McpStdioServer[]> {
  if (file === undefined) return [];
  try {
    return await loadMcpConfig(file);
  } catch (error) {
    if (error instanceof McpConfigError) throw new UsageError(`--mcp-config ${error.message}`);
    throw error;
  }
}

/**
 * Starts the servers and registers their tools (kept current on `tools/list_changed`); a server that
 * fails, or a tool whose name is taken, is reported and left out. Nothing is left running on a throw.
 * @returns the connection, to close when the session ends
 */
export async function registerMcpTools(
  servers: readonly McpStdioServer[],
  tools: ToolRegistryCore,
  options: { cwd: string; version: string; report(message: string): void },
): Promise<McpConnection> {
  const connection = await connectMcpServers(servers, {
    cwd: options.cwd,
    clientInfo: { name: 'seamchart', version: options.version },
  });
  try {
    for (const failure of connection.failures) options.report(failure.message);
    connection.register(tools, options.report);
    return connection;
  } catch (error) {
    await connection.close();
    throw error;
  }
}
