import type { AgentHandle, ApprovalChannel, SeamSet } from '../../seams/index.js';

/**
 * The live handles of one run (a turn, or a standalone tool call): the listener snapshot taken when
 * it started, its abort controller, the agent handle. Machines keep only the plain `scopeKey` in
 * context; services look the handles up here, so snapshots stay JSON.
 */
export interface RunScope {
  readonly seams: SeamSet;
  readonly controller: AbortController;
  readonly agent?: AgentHandle;
  readonly approval?: ApprovalChannel;
  /** A turn's model request running now (`startModelRequest`): its own abort, and its identity. */
  request?: AbortController | undefined;
}

/** A side table of run scopes keyed by a plain string (one table per actor system: `liveHandlesOf`). */
export class ScopeTable {
  readonly #scopes = new Map<string, RunScope>();
  #next = 0;

  /** Registers a scope and returns its key. */
  open(scope: RunScope, prefix = 'run'): string {
    const key = `${prefix}:${this.#next++}`;
    this.#scopes.set(key, scope);
    return key;
  }

  /** Registers a scope under a key the caller chose; a taken key is a programming error. */
  openAs(key: string, scope: RunScope): string {
    if (this.#scopes.has(key))
      throw new Error(`Run scope "${key}" is already open; close it before reusing the key`);
    this.#scopes.set(key, scope);
    return key;
  }

  /** The scope for `key`; a missing key is a programming error named in the message. */
  get(key: string): RunScope {
    const scope = this.#scopes.get(key);
    if (!scope)
      throw new Error(
        `No run scope "${key}": it was closed or never opened; open it before starting the machine`,
      );
    return scope;
  }

  /** Aborts the model request running in the scope under `key`, if any; a closed scope is fine. */
  stopRequest(key: string, reason?: unknown): void {
    const scope = this.#scopes.get(key);
    if (scope) abortRequest(scope, reason);
  }

  /** Closes a scope; a model request still running in it is aborted (its late answer is then stale). */
  close(key: string): void {
    this.stopRequest(key);
    this.#scopes.delete(key);
  }

  get size(): number {
    return this.#scopes.size;
  }
}

/** Aborts the scope's running request (its late answer is then stale); none running is fine. */
function abortRequest(scope: RunScope, reason?: unknown): void {
  const running = scope.request;
  if (running === undefined) return;
  scope.request = undefined;
  running.abort(reason);
}
