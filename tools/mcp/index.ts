// The MCP client's only public face: stdio servers' tools as `mcp__<server>__<tool>` definitions.
// Nothing here loads the MCP SDK until a server is started (`connectMcpServers`).

export { loadMcpConfig, parseMcpConfig } from './config.js';
export { type ConnectMcpOptions, connectMcpServers, type McpConnection } from './connect.js';
export { McpConfigError } from './errors.js';
export { assertDistinctServers, type MergedMcpServers, mergeMcpServers } from './servers.js';
export { mcpToolName } from './toolName.js';
export type { McpServerFailure, McpStdioServer } from './types.js';
