import { McpConfigError } from './errors.js';
import { mcpToolPrefix } from './toolName.js';
import type { McpStdioServer } from './types.js';

/**
 * Refuses servers whose tool names would collide (`my.fs` and `my_fs` both name theirs
 * `mcp__my_fs__…`), before any of them is started.
 * @param servers the servers of one source
 * @param source how the message names where they came from (`--mcp-config x.json`)
 */
export function assertDistinctServers(servers: readonly McpStdioServer[], source: string): void {
  const byPrefix = new Map<string, string>();
  for (const server of servers) {
    const prefix = mcpToolPrefix(server.name);
    const earlier = byPrefix.get(prefix);
    if (earlier !== undefined) {
      throw new McpConfigError(
        `${source}: MCP servers "${earlier}" and "${server.name}" would both name their tools ${prefix}*; rename one`,
      );
    }
    byPrefix.set(prefix, server.name);
  }
}

/** The servers of two sources with colliding ones dropped from the second, and those dropped. */
export interface MergedMcpServers {
  readonly servers: readonly McpStdioServer[];
  readonly replaced: readonly McpStdioServer[];
}

/**
 * Joins two sources of servers; where a server of `preferred` and one of `others` would name their
 * tools alike, the preferred one is kept (an editor's `mcpServers` over `--mcp-config`).
 * @param preferred the servers that win a collision
 * @param others the servers dropped on a collision
 */
export function mergeMcpServers(
  preferred: readonly McpStdioServer[],
  others: readonly McpStdioServer[],
): MergedMcpServers {
  const taken = new Set(preferred.map((server) => mcpToolPrefix(server.name)));
  const replaced = others.filter((server) => taken.has(mcpToolPrefix(server.name)));
  const kept = others.filter((server) => !taken.has(mcpToolPrefix(server.name)));
  return { servers: [...kept, ...preferred], replaced };
}
