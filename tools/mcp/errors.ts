/** MCP servers that cannot be used as configured (a malformed `.mcp.json`, colliding names). */
export class McpConfigError extends Error {
  override readonly name = 'McpConfigError';
}
