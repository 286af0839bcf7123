import { acpCommand } from './acp.js';
import type { CliCommand } from './command.js';
import { inspectCommand } from './inspect.js';
import { logCommand } from './log.js';
import { runCommand } from './run.js';
import { visualizeCommand } from './visualize.js';

/** Every `seamchart` subcommand, in help order. A new subcommand is its own file plus one entry here. */
export const commands: readonly CliCommand[] = [
  runCommand,
  logCommand,
  inspectCommand,
  visualizeCommand,
  acpCommand,
];
