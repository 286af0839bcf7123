import type { AnyActorRef } from 'xstate';
import type { ToolDecidedBy } from '../../kernel/index.js';
import type { ToolCallRequest } from '../../tools/index.js';
import { type DetachedCall, fanoutOf, type PreparedInput, type SealedCall } from '../../tools/index.js';
import type { SteppedActor } from './steppedActor.js';

/** The live handles of one tool call; the machine keeps only the plain `callKey`. */
export interface CallHandles {
  /** The raw request (name, raw arguments, call id), read once when the call is sealed. */
  readonly request: ToolCallRequest & { readonly callId: string };
  /** The call's own abort: fired by `ABORT`, or by the run's signal through the link. */
  readonly controller: AbortController;
  /** The request read once, arguments parsed, definition snapshotted (before `tools/prepare`). */
  detached: DetachedCall | undefined;
  /** The input `tools/prepare` settled on (absent when the fold did not run). */
  prepared: PreparedInput | undefined;
  sealed: SealedCall | undefined;
  /** The batch appended this call's `tool/call`. */
  recorded: boolean;
  /** Set by core dispatch right before the body runs. */
  bodyStarted: boolean;
  /** The asynchronous phase running now (`startPhase`); aborted when it is left or the call is closed. */
  phase: AbortController | undefined;
  /** The last phase's controller: the next phase reuses it unless it was aborted (a phase left while running). */
  lastPhase: AbortController | undefined;
  /** Removes the call's one abort listener (`watchAbort`). */
  unwatch: (() => void) | undefined;
  /** The call's machine when its batch steps it (no actor of its own); stopped when the call closes. */
  stepped: SteppedActor | undefined;
  /** The batch that steps the call and hears its reports (`PREPARED`, `SETTLED`…); none for a standalone call. */
  batch: AnyActorRef | undefined;
  /** Who made each decision that changed the call (what its `tool/result.decidedBy` records). */
  readonly decidedBy: ToolDecidedBy;
}

interface Entry {
  readonly handles: CallHandles;
  readonly unlink: () => void;
}

/**
 * A side table of tool-call handles keyed by a plain string, so machine snapshots stay JSON (one
 * table per actor system: `liveHandlesOf`).
 */
export class CallTable {
  readonly #calls = new Map<string, Entry>();

  /** Registers a call under `key`; its controller aborts when `runSignal` does. */
  open(key: string, request: CallHandles['request'], runSignal: AbortSignal): CallHandles {
    this.#refuseOpen(key);
    const controller = new AbortController();
    // One listener on the run's signal for all its live calls, however many run in parallel.
    return this.#register(key, request, controller, fanoutOf(runSignal).add(controller));
  }

  /**
   * Registers the one call of a run (a standalone `tools.execute`): the run's controller is the
   * call's own, so nothing links them.
   */
  openAsRun(key: string, request: CallHandles['request'], runController: AbortController): CallHandles {
    this.#refuseOpen(key);
    return this.#register(key, request, runController, noop);
  }

  #refuseOpen(key: string): void {
    if (this.#calls.has(key))
      throw new Error(`Tool call "${key}" is already open; close it before reusing the key`);
  }

  #register(
    key: string,
    request: CallHandles['request'],
    controller: AbortController,
    unlink: () => void,
  ): CallHandles {
    const handles: CallHandles = {
      request,
      controller,
      detached: undefined,
      prepared: undefined,
      sealed: undefined,
      recorded: false,
      bodyStarted: false,
      phase: undefined,
      lastPhase: undefined,
      unwatch: undefined,
      stepped: undefined,
      batch: undefined,
      decidedBy: {},
    };
    this.#calls.set(key, { handles, unlink });
    return handles;
  }

  /** The handles under `key`; a missing key is a programming error named in the message. */
  get(key: string): CallHandles {
    const entry = this.#calls.get(key);
    if (!entry)
      throw new Error(
        `No tool call "${key}": it was closed or never opened; open it before starting the actor`,
      );
    return entry.handles;
  }

  /** The handles under `key`, or undefined for a call closed or never opened (one lookup, not `has` then `get`). */
  find(key: string): CallHandles | undefined {
    return this.#calls.get(key)?.handles;
  }

  /**
   * Forgets a call and detaches it from the run's signal. A call machine its batch steps is stopped, and
   * a phase still running (the call was stopped or died mid-phase) is aborted, as a stopped invoke's
   * signal would be.
   */
  close(key: string): void {
    const entry = this.#calls.get(key);
    if (!entry) return;
    this.#calls.delete(key);
    entry.unlink();
    entry.handles.unwatch?.();
    entry.handles.stepped?.stop();
    stopRunningPhase(entry.handles);
  }

  /** Aborts the call's running phase, if any (its late outcome is then ignored); a closed call is fine. */
  stopPhase(key: string): void {
    const entry = this.#calls.get(key);
    if (entry) stopRunningPhase(entry.handles);
  }

  /** Forgets every call whose key starts with `prefix` (a batch that stopped early). */
  closeAll(prefix: string): void {
    for (const key of [...this.#calls.keys()]) if (key.startsWith(prefix)) this.close(key);
  }

  get size(): number {
    return this.#calls.size;
  }
}

function noop(): void {}

function stopRunningPhase(handles: CallHandles): void {
  const running = handles.phase;
  handles.phase = undefined;
  running?.abort();
}
