import { describeThrown } from '../kernel/index.js';
import type { SeamName } from './types.js';

/**
 * Why a listener failed: it threw, returned something its seam does not accept, a guard threw, or a
 * `tools/prepare` rewrite does not fit the tool's parameters.
 */
export type SeamListenerErrorCode =
  | 'LISTENER_FAILED'
  | 'INVALID_DECISION'
  | 'GUARD_FAILED'
  | 'INVALID_REWRITE';

/** What a seam dispatch rejects with when one listener fails; names the seam and the listener. */
export class SeamListenerError extends Error {
  override readonly name = 'SeamListenerError';
  readonly code: SeamListenerErrorCode;
  /** The seam, or `'guard'` for a tool guard. */
  readonly seam: SeamName | 'guard';
  readonly listener: string;

  constructor(
    code: SeamListenerErrorCode,
    seam: SeamName | 'guard',
    listener: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`${describeOwner(seam, listener)} ${detail}`, options);
    this.code = code;
    this.seam = seam;
    this.listener = listener;
  }
}

/** A listener threw or its promise rejected. */
export function createListenerFailure(
  seam: SeamName | 'guard',
  listener: string,
  error: unknown,
): SeamListenerError {
  const code = seam === 'guard' ? 'GUARD_FAILED' : 'LISTENER_FAILED';
  return new SeamListenerError(code, seam, listener, `failed: ${describeThrown(error)}`, { cause: error });
}

/** A waterfall stopped because its signal was aborted before the next listener ran. */
export class SeamAbortError extends Error {
  override readonly name = 'AbortError';
  readonly code = 'ABORTED' as const;
  readonly seam: SeamName;

  constructor(seam: SeamName, pending: string, reason: unknown) {
    super(`Seam "${seam}" was aborted before ${pending} ran`, { cause: reason });
    this.seam = seam;
  }
}

function describeOwner(seam: SeamName | 'guard', listener: string): string {
  return seam === 'guard' ? `Guard "${listener}"` : `Listener "${listener}" on seam "${seam}"`;
}
