import type { Failure, RequestErrorDecision } from '../../kernel/index.js';
import { describeReceived } from '../../kernel/index.js';
import type { SeamPlugin } from '../../seams/index.js';

/** One wait before a retried model request, as `onWait` hears it. */
export interface RequestRetryWait {
  readonly agentId: string;
  readonly turn: number;
  readonly step: number;
  /** 1 for the first retry. */
  readonly retry: number;
  readonly delayMs: number;
  /** Whether the delay is the server's `retry-after` (else the backoff's). */
  readonly fromRetryAfter: boolean;
  readonly error: Failure;
}

export interface RequestRetryOptions {
  /** Retries after which the failure stands (default: unlimited; the agent's `maxRequestRetries` caps too). */
  maxRetries?: number;
  /** The first backoff wait; each further retry waits twice as long (default 1000 ms). */
  baseDelayMs?: number;
  /** The longest backoff wait, and the longest `retry-after` honoured (default 30000 ms). */
  maxDelayMs?: number;
  /** Which failures are retried; default: rate limits, network and stream failures, HTTP 408 and 5xx. */
  retryOn?: (error: Failure) => boolean;
  /** Hears each wait before it starts (the CLI shows it on the status line). */
  onWait?: (wait: RequestRetryWait) => void;
}

const RETRIED_CODES = new Set(['RATE_LIMIT', 'NETWORK', 'STREAM_INTERRUPTED', 'PROVIDER_ERROR', 'HTTP_408']);

/** Transient failures: worth a retry once the server has had time. */
function isTransient(error: Failure): boolean {
  return error.code !== undefined && (RETRIED_CODES.has(error.code) || /^HTTP_5\d\d$/.test(error.code));
}

/**
 * An `agent/request-error` listener that retries transient model failures after a wait: exponential
 * backoff (`baseDelayMs`·2ⁿ up to `maxDelayMs`), or the server's `retry-after` when it sent one. A
 * cancel during the wait ends it at once (the failure then stands).
 * @example seams.use(plugins.requestRetry({ onWait: ({ delayMs }) => console.log(`retrying in ${delayMs} ms`) }));
 */
export function requestRetry(options: RequestRetryOptions = {}): SeamPlugin {
  const maxRetries = checkCount(options.maxRetries, 'maxRetries', Number.POSITIVE_INFINITY);
  const baseDelayMs = checkCount(options.baseDelayMs, 'baseDelayMs', 1000);
  const maxDelayMs = checkCount(options.maxDelayMs, 'maxDelayMs', 30_000);
  const retryOn = options.retryOn ?? isTransient;
  return {
    name: 'requestRetry',
    apply: (seams) =>
      seams.on(
        'agent/request-error',
        async (ctx, next): Promise<RequestErrorDecision> => {
          if (ctx.priorFailures >= maxRetries || !retryOn(ctx.error) || ctx.signal.aborted) return next();
          const fromRetryAfter = ctx.error.retryAfterMs !== undefined;
          const delayMs = Math.min(
            maxDelayMs,
            ctx.error.retryAfterMs ?? baseDelayMs * 2 ** ctx.priorFailures,
          );
          options.onWait?.({
            agentId: ctx.agent.id,
            turn: ctx.turn,
            step: ctx.step,
            retry: ctx.priorFailures + 1,
            delayMs,
            fromRetryAfter,
            error: ctx.error,
          });
          const waited = await wait(delayMs, ctx.signal);
          return waited ? { action: 'retry' } : next();
        },
        { name: 'requestRetry' },
      ),
  };
}

/** Resolves `true` after `ms`, or `false` as soon as `signal` aborts. */
function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (waited: boolean): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(waited);
    };
    const onAbort = (): void => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function checkCount(value: number | undefined, option: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (
    typeof value === 'number' &&
    value >= 0 &&
    (Number.isInteger(value) || value === Number.POSITIVE_INFINITY)
  )
    return value;
  throw new TypeError(
    `Expected the \`${option}\` option of plugins.requestRetry() to be a non-negative integer, got ${describeReceived(value)}`,
  );
}
