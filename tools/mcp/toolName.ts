// Claude Code's naming: characters a tool name may not hold become `_`, so `mcp__.*` matchers work.
const INVALID = /[^A-Za-z0-9_-]/g;

/**
 * The registered name of an MCP server's tool: `mcp__<server>__<tool>`.
 * @param server the server's configured name
 * @param tool the tool's name as the server lists it
 */
export function mcpToolName(server: string, tool: string): string {
  return `${mcpToolPrefix(server)}${tool.replace(INVALID, '_')}`;
}

/** `mcp__<server>__`: what every tool name of a server starts with (`my.fs` and `my_fs` share one). */
export function mcpToolPrefix(server: string): string {
  return `mcp__${server.replace(INVALID, '_')}__`;
}
