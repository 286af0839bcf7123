import type { Command } from 'commander';
import { type CliCommand, type CliIO, repeatable, UsageError } from './command.js';
import { type AgentFlags, loadBridges } from './runFlags.js';

type CheckFlags = Pick<AgentFlags, 'claudeSettings' | 'claudePlugin' | 'codexHooks' | 'codexPlugin'>;

const EXAMPLES = `
Examples:
  seamchart hooks check --claude-settings .claude/settings.json
  seamchart hooks check --claude-plugin ~/.claude/plugins/security-guidance
  seamchart hooks check --codex-hooks ~/.codex/hooks.json --codex-plugin ./my-plugin

The first line counts the behaviours that differ from the original client for this configuration
(0: its hooks run as they would there). Exit codes: 0 loaded, 2 a config that does not load.
`;

/**
 * `seamchart hooks check`: loads hook configs and plugins as `run` would and prints the full
 * capability report of each bridge (honored, differing, notes, caveats, permissions).
 */
export const hooksCommand: CliCommand = {
  name: 'hooks',
  configure(command: Command) {
    command
      .description('check hook configs and plugins: what runs as in Claude Code or Codex, and what differs')
      .argument('<action>', 'check: load the configs and print their capability report')
      .option('--claude-settings <file>', 'a Claude Code settings.json (repeatable)', repeatable)
      .option('--claude-plugin <dir>', 'a Claude Code plugin folder (repeatable)', repeatable)
      .option('--codex-hooks <file>', 'a Codex hooks.json (repeatable)', repeatable)
      .option('--codex-plugin <dir>', 'a Codex plugin folder (repeatable)', repeatable)
      .addHelpText('after', EXAMPLES);
  },
  async run(command: Command, io: CliIO) {
    const [action] = command.args;
    if (action !== 'check') throw new UsageError(`hooks expects the action check, got "${action}"`);
    const flags = command.opts<CheckFlags>();
    const given = [flags.claudeSettings, flags.claudePlugin, flags.codexHooks, flags.codexPlugin].flat();
    if (given.every((item) => item === undefined))
      throw new UsageError(
        'hooks check needs --claude-settings FILE, --claude-plugin DIR, --codex-hooks FILE or --codex-plugin DIR',
      );
    const bridges = await loadBridges({ ...flags, model: 'openai', tools: 'none' }, undefined);
    const { formatCapabilities } = await import('../index.js');
    for (const bridge of bridges) io.stdout.write(`${formatCapabilities(bridge.capabilities())}\n`);
    return 0;
  },
};
