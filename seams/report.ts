import { describeThrown } from '../kernel/index.js';
import { createListenerFailure, SeamListenerError } from './errors.js';
import type { ReportFailure } from './listener-entry.js';
import type { SeamLogger } from './types.js';

/** The logger used when `createSeams()` gets none: failures must never vanish silently. */
// Without details, only the message is printed (never a trailing `undefined`).
export const consoleLogger: SeamLogger = {
  error: (message, details) =>
    details === undefined ? console.error(message) : console.error(message, details),
  warn: (message, details) =>
    details === undefined ? console.warn(message) : console.warn(message, details),
};

/**
 * Creates the reporter for contained failures: logs with seam and listener, then tells the scope.
 * `agent/error`'s own failures go only to the logger, or reporting them would loop.
 */
export function createReporter(logger: SeamLogger): ReportFailure {
  return (seam, listener, error, scope) => {
    const failure = error instanceof SeamListenerError ? error : createListenerFailure(seam, listener, error);
    logSafely(logger, failure.message, { seam, listener, error });
    const onContainedError = scope?.onContainedError;
    if (!onContainedError || seam === 'agent/error') return;
    try {
      onContainedError({ seam, listener, error: failure });
    } catch (handlerError) {
      logSafely(
        logger,
        `onContainedError failed while reporting "${listener}": ${describeThrown(handlerError)}`,
        {
          seam,
          listener,
          error: handlerError,
        },
      );
    }
  };
}

/** Logs an error without letting a broken logger break the dispatch that is reporting. */
export function logSafely(logger: SeamLogger, message: string, details: Record<string, unknown>): void {
  try {
    logger.error(message, details);
  } catch {
    // Nothing left to tell: the logger itself is the failing part.
  }
}
