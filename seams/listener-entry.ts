import type { DispatchScope, Disposer, ListenerOptions, SeamName } from './types.js';

/** One registered listener or guard, as the registry stores it. */
export interface ListenerEntry {
  readonly seam: SeamName | 'guard';
  /** Dispatch name: the `name` option, `<plugin>.<fn>`, or `<seam>#<n>`. */
  readonly name: string;
  // Listener signatures differ per seam; each dispatcher calls it with its own mode's arguments.
  readonly fn: (...args: any[]) => unknown;
  /** Only dispatched for this agent id; `undefined` means every agent. */
  readonly agent: string | undefined;
}

/** Reports one contained failure (logger, then `scope.onContainedError`). */
export type ReportFailure = (seam: SeamName, listener: string, error: unknown, scope?: DispatchScope) => void;

/** Adds one listener to the registry; `plugin` prefixes the default name. */
export type Register = (
  seam: SeamName | 'guard',
  fn: ListenerEntry['fn'],
  options: ListenerOptions,
  plugin?: string,
) => Disposer;
