#!/usr/bin/env node
import { runLogCommand } from './log.js';
import { runRunCommand } from './run.js';
import { USAGE, UsageError } from './usage.js';
import { runVisualizeCommand } from './visualize.js';

/** The `seamchart` command: dispatches to a subcommand and maps failures to exit codes. */
export async function main(argv: string[], write: (line: string) => void = console.log): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === 'run') return await runRunCommand(rest, write);
    if (command === 'log') return await runLogCommand(rest, write);
    if (command === 'visualize') return await runVisualizeCommand(rest, write);
    if (command === undefined || command === '--help' || command === 'help') {
      write(USAGE);
      return command === undefined ? 2 : 0;
    }
    throw new UsageError(`unknown command "${command}"; expected run, log or visualize`);
  } catch (error) {
    // parseArgs throws TypeErrors with a code for unknown flags and bad values: bad input, exit 2.
    const code = (error as { code?: string }).code;
    if (error instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
      process.stderr.write(`seamchart: ${(error as Error).message}\n`);
      return 2;
    }
    process.stderr.write(`seamchart: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

const invokedDirectly = process.argv[1] !== undefined && /[\\/]cli[\\/]main\.(ts|js)$/.test(process.argv[1]);
if (invokedDirectly) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
