import type { Pool, PoolClient } from 'pg';

/** How `withPoolClient` hands its client back. */
export interface PoolClientOptions {
  /** Destroy the client when `run` throws (it may hold session state: an advisory lock, a setting). */
  readonly discardOnThrow?: boolean;
}

/**
 * Runs `run` on a client checked out of `pool`. While it is out the client keeps an `error` ear: the server
 * ending the connection (an idle limit, a restart) would otherwise be an unheard `error` event, which ends the
 * process. `lost()` answers that error, if any; a client whose connection was lost is destroyed, not pooled.
 * @param pool the pool to check a client out of
 * @param run what to do with it
 * @param options whether a throw also destroys the client
 */
export async function withPoolClient<T>(
  pool: Pool,
  run: (client: PoolClient, lost: () => Error | undefined) => Promise<T>,
  options: PoolClientOptions = {},
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onLost = (error: Error): void => {
    broken = error;
  };
  client.on('error', onLost);
  try {
    return await run(client, () => broken);
  } catch (error) {
    if (options.discardOnThrow === true) broken ??= error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    client.off('error', onLost);
    client.release(broken);
  }
}
