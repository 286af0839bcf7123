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

/**
 * Runs a database call, turning a refusal made before anything was written (a distributed error, a bad
 * argument, an unmigrated database) into CLI words (exit 2); any other failure is left as it is.
 */
export async function databaseFailureAsUsage<T>(call: () => Promise<T>): Promise<T> {
  const { DistributedError, SessionLoadError } = await import('../index.js');
  try {
    return await call();
  } catch (error) {
    if (
      error instanceof DistributedError ||
      error instanceof TypeError ||
      (error instanceof SessionLoadError && error.code === 'NOT_MIGRATED')
    )
      throw new UsageError(error.message);
    throw error;
  }
}
