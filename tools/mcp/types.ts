/** One MCP server started as a child process speaking MCP over stdio. */
export interface McpStdioServer {
  /** The name in `mcp__<server>__<tool>`. */
  readonly name: string;
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to the agent's own environment for this server. */
  readonly env?: Readonly<Record<string, string>>;
}

/** A server that could not be started or listed; its tools are absent. */
export interface McpServerFailure {
  readonly server: string;
  readonly message: string;
}
