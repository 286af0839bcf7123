import type { Command } from 'commander';
import { type CliCommand, type CliIO, UsageError } from './command.js';
import { databaseUrlOf } from './databaseFlags.js';

/** `seamchart db migrate`: creates or updates the session tables and DBOS's system schema (idempotent). */
export const dbCommand: CliCommand = {
  name: 'db',
  configure(command: Command) {
    command
      .description('manage the PostgreSQL database of the worker pool')
      .argument('<action>', 'migrate: create or update the tables (safe to run again, and concurrently)')
      .option('--database-url <url>', 'the PostgreSQL database');
  },
  async run(command: Command, io: CliIO) {
    const [action] = command.args;
    if (action !== 'migrate') throw new UsageError(`db expects the action migrate, got "${action}"`);
    const databaseUrl = databaseUrlOf(command.opts<{ databaseUrl?: string }>().databaseUrl, io.env);
    const { migrate } = await import('../index.js');
    await migrate({ databaseUrl });
    io.stdout.write('migrated: the seamchart tables and the DBOS system schema are up to date\n');
    return 0;
  },
};
