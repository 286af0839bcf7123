import type { Command } from 'commander';
import { checkInvariants, formatViolation, readJsonlLog, SessionLoadError } from '../index.js';
import { type CliCommand, type CliIO, UsageError } from './command.js';
import { describeEvent } from './print.js';

/**
 * `seamchart log FILE [--check] [--json]`: pretty-prints a session log, a live one too (never locking or writing
 * it); `--check` runs the invariants.
 */
export const logCommand: CliCommand = {
  name: 'log',
  configure(command: Command) {
    command
      .description('pretty-print a session log; --check runs the invariants (exit 1 on a violation)')
      .argument('<file>', 'a session file written by seamchart run --session')
      .option('--check', 'check every log invariant; exit 1 when one is violated')
      .option('--json', 'print the events as JSONL instead of one line each')
      .addHelpText('after', '\nExample:\n  seamchart log session.jsonl --check\n');
  },
  async run(command: Command, io: CliIO) {
    const [file] = command.args as [string];
    const options = command.opts<{ check?: boolean; json?: boolean }>();
    const write = (line: string): void => {
      io.stdout.write(`${line}\n`);
    };
    let loaded: Awaited<ReturnType<typeof readJsonlLog>>;
    try {
      loaded = await readJsonlLog(file);
    } catch (error) {
      if (error instanceof SessionLoadError) throw new UsageError(error.message);
      throw error;
    }
    for (const event of loaded.events) write(options.json ? JSON.stringify(event) : describeEvent(event));
    for (const repair of loaded.repairs) write(`repaired in memory (file untouched): ${repair}`);
    const { writer, beingWritten } = loaded;
    if (writer !== undefined) {
      write(
        `live session: process ${writer.pid} on ${writer.host} is writing it (since ${writer.since}); its tail is being written, nothing was repaired`,
      );
      if (beingWritten !== undefined)
        write(
          `line ${beingWritten.line}: being written (${beingWritten.bytes} bytes so far, not an event yet)`,
        );
    }
    if (!options.check) return 0;
    // A live session's last turn may still be open.
    const violations = checkInvariants(loaded.events, { open: writer !== undefined });
    for (const violation of violations) write(formatViolation(violation));
    write(violations.length === 0 ? 'invariants: ok' : `invariants: ${violations.length} violation(s)`);
    return violations.length === 0 ? 0 : 1;
  },
};
