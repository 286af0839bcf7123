import { setTimeout as sleep } from 'node:timers/promises';
import { ModelErrorCode, ModelRequestError } from './types.js';

/** The error every adapter rejects with once the request's signal aborts. */
export function createAbortedError(signal: AbortSignal): ModelRequestError {
  return new ModelRequestError(
    { message: 'The model request was aborted', code: ModelErrorCode.aborted },
    { cause: signal.reason },
  );
}

/** Resolves after `ms`, or rejects with an `ABORTED` error as soon as `signal` aborts. */
export async function waitFor(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (error) {
    if (signal.aborted) throw createAbortedError(signal);
    throw error;
  }
}

/** Rejects with an `ABORTED` error when `signal` aborts; never resolves. */
export function waitForAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(createAbortedError(signal));
    else signal.addEventListener('abort', () => reject(createAbortedError(signal)), { once: true });
  });
}
