import { InvalidArgumentError } from 'commander';
import { UsageError } from './command.js';

/** `--database-url`, or `$SEAMCHART_DATABASE_URL`; a PostgreSQL URL is required. */
export function databaseUrlOf(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const url = flag ?? env.SEAMCHART_DATABASE_URL;
  if (url === undefined || url === '') {
    throw new UsageError('--database-url URL is required (or set $SEAMCHART_DATABASE_URL)');
  }
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new UsageError(`--database-url expects postgres://… or postgresql://…, got "${url}"`);
  }
  return url;
}

/** A flag that takes a positive whole number. */
export function positiveIntegerFlag(value: string): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError('expected a whole number of at least 1.');
  return parsed;
}
