import type { ToolResult } from '../../kernel/index.js';
import { describeReceived } from '../../kernel/index.js';
import type { SeamPlugin, ToolExecution } from '../../seams/index.js';

export interface RetryOptions {
  /** Total attempts including the first (a positive integer). */
  attempts: number;
  /** Whether a failed attempt is retried; default: `TOOL_FAILED` and `TOOL_TIMEOUT`. */
  on?: (result: ToolResult, exec: ToolExecution) => boolean;
}

const RETRIED_BY_DEFAULT = new Set(['TOOL_FAILED', 'TOOL_TIMEOUT']);

/**
 * A `tools/execute` wrapper that calls `next()` again after a failed attempt (for idempotent
 * tools); a failed attempt's result is discarded together with the contexts its body deferred.
 * @example seams.use(plugins.retry({ attempts: 3 }));
 */
export function retry(options: RetryOptions): SeamPlugin {
  const rawAttempts = (options as Partial<RetryOptions> | undefined)?.attempts;
  if (!(typeof rawAttempts === 'number' && Number.isInteger(rawAttempts) && rawAttempts >= 1)) {
    throw new TypeError(
      `Expected the \`attempts\` option of plugins.retry() to be a positive integer, got ${describeReceived(rawAttempts)}`,
    );
  }
  if (options.on !== undefined && typeof options.on !== 'function') {
    throw new TypeError(
      `Expected the \`on\` option of plugins.retry() to be a function, got ${describeReceived(options.on)}`,
    );
  }
  const attempts = rawAttempts;
  const shouldRetry = options.on ?? ((result) => result.isError && RETRIED_BY_DEFAULT.has(result.error.code));
  return {
    name: 'retry',
    apply: (seams) =>
      seams.on(
        'tools/execute',
        async (exec, next): Promise<ToolResult> => {
          let result = await next();
          for (let attempt = 1; attempt < attempts; attempt++) {
            // A cancelled call is not retried: the caller wants it to stop.
            if (!result.isError || exec.signal.aborted || !shouldRetry(result, exec)) break;
            result = await next();
          }
          return result;
        },
        { name: 'retry' },
      ),
  };
}
