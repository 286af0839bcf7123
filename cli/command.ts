import type { Command } from 'commander';

/** Where a command writes text: a stream, or a test's capture. */
export interface TextSink {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

/** What a keyboard-reading prompt needs of standard input (a TTY in raw mode, or a test's stream). */
export type TextSource = NodeJS.ReadableStream & {
  readonly isTTY?: boolean;
  setRawMode?(raw: boolean): unknown;
};

/** The outside world of one command invocation; `processIO()` is the real one. */
export interface CliIO {
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  readonly stdin: TextSource;
  readonly env: NodeJS.ProcessEnv;
  /** Subscribes to SIGINT/SIGTERM for the duration of a run; returns the unsubscriber. */
  onSignal(listener: (signal: 'SIGINT' | 'SIGTERM') => void): () => void;
  /** Ends the process at once (a second Ctrl-C). */
  exit(code: number): void;
}

/**
 * One `seamchart` subcommand, in its own file. `configure` declares its flags and help on the
 * commander command; `run` does the work and returns the exit code.
 */
export interface CliCommand {
  readonly name: string;
  configure(command: Command): void;
  run(command: Command, io: CliIO): Promise<number>;
}

/** A bad command line or input file: printed as one line, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The real process: its streams, environment and signals. */
export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    onSignal(listener) {
      const onInt = (): void => listener('SIGINT');
      const onTerm = (): void => listener('SIGTERM');
      process.on('SIGINT', onInt);
      process.on('SIGTERM', onTerm);
      return () => {
        process.off('SIGINT', onInt);
        process.off('SIGTERM', onTerm);
      };
    },
    exit: (code) => process.exit(code),
  };
}

/** Collects a repeatable flag's values (`--prompt a --prompt b`). */
export function repeatable(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
