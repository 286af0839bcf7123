import { z } from 'zod';
import { capText, describeReceived } from './describeValue.js';

/** A failure as the log records it (`turn/end`, `agent/error`, a model failure): data first, text by one function. */
export const FailureSchema = z.object({
  message: z.string(),
  code: z.string().optional(),
  /** How long the server asked the client to wait before retrying (HTTP `retry-after`). */
  retryAfterMs: z.number().nonnegative().optional(),
});
export type Failure = z.infer<typeof FailureSchema>;

/** The codes a turn's own failures carry on `turn/end` (a model failure carries the adapter's code instead). */
export const TurnFailureCode = {
  /** A machine action, a child actor or a log append failed. */
  internalError: 'INTERNAL_ERROR',
  /** The model's answer was not a valid step (`ModelErrorCode.invalidResponse`). */
  invalidResponse: 'INVALID_RESPONSE',
  /** `agent/session-start` listeners did not settle in time (an `agent/error`, the agent proceeds). */
  sessionStartTimeout: 'SESSION_START_TIMEOUT',
} as const;
export type TurnFailureCode = (typeof TurnFailureCode)[keyof typeof TurnFailureCode];

/** The longest message a failure keeps; a thrown megabyte must not land in every log line that quotes it. */
export const MAX_FAILURE_MESSAGE = 2_000;
const MAX_CODE = 100;
const UNPRINTABLE = '<unprintable thrown value>';

/**
 * Turns anything thrown into `{ message, code? }`: an Error's (or an error-like object's) message and
 * string `code`, a thrown string as is, anything else as `non-Error value …`. Never throws, whatever the
 * value (null prototypes, throwing getters, hostile Proxies, cycles, BigInt); messages are capped.
 * @param thrown what a `catch` or a rejected promise received
 * @example toFailure(Object.assign(new Error('disk full'), { code: 'ENOSPC' })) // { message: 'disk full', code: 'ENOSPC' }
 */
export function toFailure(thrown: unknown): Failure {
  try {
    const message = capText(messageOf(thrown), MAX_FAILURE_MESSAGE);
    const code = codeOf(thrown);
    const retryAfterMs = retryAfterOf(thrown);
    return {
      message,
      ...(code === undefined ? {} : { code }),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  } catch {
    return { message: UNPRINTABLE };
  }
}

/**
 * The message of anything thrown (`toFailure(thrown).message`); never throws.
 * @param thrown what a `catch` or a rejected promise received
 */
export function describeThrown(thrown: unknown): string {
  return toFailure(thrown).message;
}

function messageOf(thrown: unknown): string {
  if (typeof thrown === 'string' && thrown !== '') return thrown;
  if (isObjectLike(thrown)) {
    const message = read(thrown, 'message');
    if (typeof message === 'string' && message !== '') return message;
    if (isError(thrown)) {
      const name = read(thrown, 'name');
      return typeof name === 'string' && name !== '' ? name : 'Error';
    }
  }
  return `non-Error value ${describeReceived(thrown)}`;
}

function codeOf(thrown: unknown): string | undefined {
  const code = isObjectLike(thrown) ? read(thrown, 'code') : undefined;
  return typeof code === 'string' && code !== '' ? capText(code, MAX_CODE) : undefined;
}

function retryAfterOf(thrown: unknown): number | undefined {
  const value = isObjectLike(thrown) ? read(thrown, 'retryAfterMs') : undefined;
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function isObjectLike(value: unknown): value is object {
  return (typeof value === 'object' || typeof value === 'function') && value !== null;
}

// A getter or Proxy trap may throw; a property that cannot be read is treated as absent.
function read(value: object, key: 'message' | 'name' | 'code' | 'retryAfterMs'): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

// `instanceof` runs a Proxy's getPrototypeOf trap, which may throw.
function isError(value: object): boolean {
  try {
    return value instanceof Error;
  } catch {
    return false;
  }
}
