import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { describeThrown } from '../../kernel/index.js';
import { McpConfigError } from './errors.js';
import { assertDistinctServers } from './servers.js';
import type { McpStdioServer } from './types.js';

// Claude Code's `.mcp.json`: `{ "mcpServers": { "<name>": { "command", "args"?, "env"? } } }`.
const StdioEntrySchema = z.object({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
});
const McpConfigSchema = z.object({ mcpServers: z.record(z.string(), z.unknown()) });

/**
 * Reads the stdio servers of a Claude Code `.mcp.json` file.
 * @param file the config file
 * @example
 * const servers = await loadMcpConfig('.mcp.json'); // [{ name: 'notes', command: 'node', args: ['notes.js'] }]
 */
export async function loadMcpConfig(file: string): Promise<McpStdioServer[]> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new McpConfigError(`cannot read MCP config ${file}: ${describeThrown(error)}`, { cause: error });
  }
  return parseMcpConfig(raw, file);
}

/**
 * Validates a parsed `.mcp.json` object; only stdio servers are supported.
 * @param raw the parsed JSON
 * @param file where it came from, for messages
 */
export function parseMcpConfig(raw: unknown, file = 'MCP config'): McpStdioServer[] {
  const config = McpConfigSchema.safeParse(raw);
  if (!config.success) {
    throw new McpConfigError(`${file}: expected an object { "mcpServers": { "<name>": { "command": … } } }`);
  }
  const servers = Object.entries(config.data.mcpServers).map(([name, rawEntry]): McpStdioServer => {
    const type = (rawEntry as { type?: unknown } | null)?.type;
    if (type !== undefined && type !== 'stdio') {
      throw new McpConfigError(
        `${file}: MCP server "${name}" uses transport ${JSON.stringify(type)}; only stdio servers are supported`,
      );
    }
    const entry = StdioEntrySchema.safeParse(rawEntry);
    if (!entry.success) {
      const issue = entry.error.issues[0];
      throw new McpConfigError(
        `${file}: MCP server "${name}": ${issue?.path.join('.') || 'entry'}: ${(issue?.message ?? 'is invalid').replace(/^Invalid input: /, '')}`,
      );
    }
    return {
      name,
      command: entry.data.command,
      ...(entry.data.args ? { args: entry.data.args } : {}),
      ...(entry.data.env ? { env: entry.data.env } : {}),
    };
  });
  assertDistinctServers(servers, file);
  return servers;
}
