import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** Where `mcpRun` wrote its files, and the `seamchart run` arguments that use them. */
export interface McpRun {
  readonly script: string;
  readonly config: string;
  /** `run <prompt> --model scripted:<script> --mcp-config <config> --session <session>` (plus `--json`). */
  args(prompt: string, session: string, options?: { json?: boolean }): string[];
}

/**
 * Writes a scripted model and a `.mcp.json` into `dir` for a `seamchart run --mcp-config` test.
 * @param steps the scripted model's steps
 * @param mcpServers the `.mcp.json` servers
 */
export function mcpRun(dir: string, steps: readonly unknown[], mcpServers: Record<string, unknown>): McpRun {
  const script = path.join(dir, 'script.json');
  writeFileSync(script, JSON.stringify(steps));
  const config = path.join(dir, '.mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers }));
  return {
    script,
    config,
    args: (prompt, session, options = {}) => [
      'run',
      prompt,
      '--model',
      `scripted:${script}`,
      '--mcp-config',
      config,
      '--session',
      session,
      ...(options.json === true ? ['--json'] : []),
    ],
  };
}
