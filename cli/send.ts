import type { Command } from 'commander';
import { type CliCommand, type CliIO, UsageError } from './command.js';
import { databaseFailureAsUsage, databaseUrlOf } from './databaseFlags.js';

interface SendFlags {
  databaseUrl?: string;
  session?: string;
  id?: string;
  new?: boolean;
}

/**
 * `seamchart send`: enqueues one message for a session run by the worker pool; prints its id once the enqueue
 * is durable. An unknown session (without --new) or an existing one (with --new) exits 2, enqueuing nothing.
 */
export const sendCommand: CliCommand = {
  name: 'send',
  configure(command: Command) {
    command
      .description('send a message to a session run by `seamchart worker` (prints its id once enqueued)')
      .argument('<text...>', 'the words of the message')
      .option('--database-url <url>', 'the PostgreSQL database of the sessions')
      .option('--session <id>', 'the session to send to')
      .option('--id <id>', 'the message id (1–128 of A-Za-z0-9._:-; the same id twice delivers once)')
      .option('--new', 'create the session (refused if it exists)');
  },
  async run(command: Command, io: CliIO) {
    const flags = command.opts<SendFlags>();
    const databaseUrl = databaseUrlOf(flags.databaseUrl, io.env);
    const sessionId = flags.session;
    if (sessionId === undefined || sessionId === '') throw new UsageError('send needs --session ID');
    const content = command.args.join(' ');
    const { sendMessage } = await import('../index.js');
    const id = await databaseFailureAsUsage(() =>
      sendMessage({
        databaseUrl,
        sessionId,
        content,
        ...(flags.id === undefined ? {} : { id: flags.id }),
        ...(flags.new === true ? { create: true } : {}),
      }),
    );
    io.stdout.write(`${id}\n`);
    return 0;
  },
};
