import { acpCommand } from './acp.js';
import { approvalsCommand, approveCommand } from './approvals.js';
import type { CliCommand } from './command.js';
import { dbCommand } from './db.js';
import { hooksCommand } from './hooks.js';
import { inspectCommand } from './inspect.js';
import { logCommand } from './log.js';
import { runCommand } from './run.js';
import { sendCommand } from './send.js';
import { visualizeCommand } from './visualize.js';
import { workerCommand } from './worker.js';

/** Every `seamchart` subcommand, in help order. A new subcommand is its own file plus one entry here. */
export const commands: readonly CliCommand[] = [
  runCommand,
  logCommand,
  approvalsCommand,
  approveCommand,
  inspectCommand,
  visualizeCommand,
  acpCommand,
  workerCommand,
  sendCommand,
  dbCommand,
  hooksCommand,
];
