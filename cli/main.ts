#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { type CliCommand, type CliIO, processIO, UsageError } from './command.js';
import { packageVersion } from './version.js';

/** The commander program: every subcommand from the table, help and errors routed to `io`. */
function buildProgram(io: CliIO, exitCode: { value: number }, commands: readonly CliCommand[]): Command {
  const program = new Command('seamchart')
    .description('Run AI-agent turns as XState statecharts, with Claude Code and Codex hooks.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [command]', 'show help for a command')
    .showSuggestionAfterError(true)
    .addHelpText(
      'after',
      `
Examples:
  seamchart run "list the files" --model scripted:script.json --tools demo
  seamchart run --help
  seamchart log session.jsonl --check
`,
    );
  for (const cli of commands) {
    const command = program.command(cli.name).helpOption('-h, --help', 'show help for this command');
    cli.configure(command);
    // Commander passes the declared arguments, the options, then the command itself.
    command.action(async (...args: unknown[]) => {
      exitCode.value = await cli.run(args.at(-1) as Command, io);
    });
  }
  const output = {
    writeOut: (text: string) => io.stdout.write(text),
    writeErr: (text: string) => io.stderr.write(text),
    // Errors are printed by main as one line; commander's own two-line form is suppressed.
    outputError: () => {},
  };
  program.configureOutput(output).exitOverride();
  for (const command of program.commands) command.configureOutput(output).exitOverride();
  return program;
}

/** The flags of `seamchart` itself; any other leading flag belongs to the default command, `run`. */
const PROGRAM_FLAGS = new Set(['-h', '--help', '-V', '--version']);

/** Commander's message as one line: `unknown option '--modle' (did you mean --model?)`. */
function oneLine(message: string): string {
  return message
    .replace(/^error: /, '')
    .replace(/\n\(Did you mean (.+)\?\)/, ' (did you mean $1?)')
    .replace(/\s*\n\s*/g, ' ');
}

/**
 * The `seamchart` command: dispatches to a subcommand and maps failures to exit codes
 * (0 ok, 1 a turn or check failed, 2 bad input).
 */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  // `--version` answers before the library is loaded: a script calling it pays for node alone.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    io.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const exitCode = { value: 0 };
  const { commands } = await import('./commands.js');
  const program = buildProgram(io, exitCode, commands);
  const onTerminal = io.stdin.isTTY === true && io.stdout.isTTY === true;
  if (argv.length === 0 && !onTerminal) {
    io.stderr.write(program.helpInformation());
    return 2;
  }
  // `seamchart` alone on a terminal (or with only flags: `seamchart --session s.jsonl --resume`) is the prompt loop.
  if (argv.length === 0 || (argv[0]?.startsWith('-') && !PROGRAM_FLAGS.has(argv[0]))) argv = ['run', ...argv];
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode.value;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return 0; // --help, --version
      const hint = error.message.includes('Did you mean') ? '' : ' (see --help)';
      io.stderr.write(`seamchart: ${oneLine(error.message)}${hint}\n`);
      return 2;
    }
    if (error instanceof UsageError) {
      io.stderr.write(`seamchart: ${error.message}\n`);
      return 2;
    }
    const { describeThrown } = await import('../index.js');
    io.stderr.write(`seamchart: ${describeThrown(error)}\n`);
    return 1;
  }
}

const invokedDirectly = process.argv[1] !== undefined && /[\\/]cli[\\/]main\.(ts|js)$/.test(process.argv[1]);
if (invokedDirectly) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
