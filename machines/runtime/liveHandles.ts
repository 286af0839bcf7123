import type { ActorSystem } from 'xstate';
import { CallTable } from './callTable.js';
import { ScopeTable } from './scopeTable.js';

/** The live handles of one owner (an actor system, or one standalone call): the run scopes and tool calls it runs. */
export interface LiveHandles {
  readonly scopes: ScopeTable;
  readonly calls: CallTable;
  /** Closes the scope under `scopeKey` and every call opened under it (keys `<scopeKey>/…`). */
  close(scopeKey: string): void;
}

// A side table keyed by the system, as XState keeps its own (promise.ts keys abort controllers by
// the actor): snapshots stay JSON, keys are unique per system only, and a dropped system takes its
// handles with it.
const handlesBySystem = new WeakMap<ActorSystem<any>, LiveHandles>();

/**
 * The live handles of `system` (an agent and all its turns, batches and calls; or one standalone
 * call), created on first use.
 * @param system the actor system every action, guard and actor creator receives in its args
 * @example
 * const actor = createActor(createToolCallLogic(services), { input });
 * liveHandlesOf(actor.system).scopes.openAs('run', scope);
 */
export function liveHandlesOf(system: ActorSystem<any>): LiveHandles {
  let handles = handlesBySystem.get(system);
  if (handles === undefined) {
    handles = createLiveHandles();
    handlesBySystem.set(system, handles);
  }
  return handles;
}

/**
 * Live handles owned by whoever creates them (an owner with no
 * actor system to key them by): they go when their owner drops them.
 * @example
 * const handles = createLiveHandles();
 * handles.scopes.openAs('tools.execute', scope);
 * try { ... } finally { handles.close('tools.execute'); }
 */
export function createLiveHandles(): LiveHandles {
  const scopes = new ScopeTable();
  const calls = new CallTable();
  return {
    scopes,
    calls,
    close: (scopeKey) => {
      calls.closeAll(`${scopeKey}/`);
      scopes.close(scopeKey);
    },
  };
}
