// The MCP client's only public face: stdio servers' tools as `mcp__<server>__<tool>` definitions.

export { loadMcpConfig, McpConfigError, parseMcpConfig } from './config.js';
export { type ConnectMcpOptions, connectMcpServers, type McpConnection } from './connect.js';
export { mcpToolName } from './toolName.js';
export type { McpServerFailure, McpStdioServer } from './types.js';
