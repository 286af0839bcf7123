import { closeSync, openSync, writeSync } from 'node:fs';
import type { AnyActorRef, AnyStateMachine, InspectionEvent } from 'xstate';
import { serializeConfig } from './serializeConfig.js';
import { type JsonSafe, toJsonSafe } from './toJsonSafe.js';

/** What `createInspectionLog` returns: pass `inspect` to `createActor`, call `close()` when the run ends. */
export interface InspectionLog {
  /** XState's `inspect` option: writes `@xstate.actor`, `@xstate.event` and `@xstate.snapshot` lines. */
  readonly inspect: (event: InspectionEvent) => void;
  /** Closes the file; events arriving later are dropped (a run may outlive its log). Idempotent. */
  readonly close: () => void;
}

/**
 * Write XState inspection events to `path` as JSONL (truncating it). Self-describing: each
 * `@xstate.actor` line carries the actor's machine definition, and a child's `xstate.init` event line
 * names its parent as `sourceId`; everything is JSON-safe.
 * @param path the JSONL file to write
 * @example
 * const log = createInspectionLog('run.inspect.jsonl');
 * const actor = createActor(machine, { inspect: log.inspect }).start();
 * // … later
 * log.close();
 */
export function createInspectionLog(path: string): InspectionLog {
  let fd: number | null = openSync(path, 'w');
  let seq = 0;
  const write = (record: { [key: string]: JsonSafe | undefined }): void => {
    if (fd === null) return;
    writeSync(fd, `${JSON.stringify({ seq: seq++, time: Date.now(), ...record })}\n`);
  };
  return {
    inspect(event) {
      const record = toRecord(event);
      if (record !== undefined) write(record);
    },
    close() {
      if (fd === null) return;
      closeSync(fd);
      fd = null;
    },
  };
}

function toRecord(event: InspectionEvent): { [key: string]: JsonSafe | undefined } | undefined {
  const actor = event.actorRef as AnyActorRef;
  const base = { type: event.type, rootId: event.rootId, sessionId: actor.sessionId };
  switch (event.type) {
    case '@xstate.actor':
      return {
        ...base,
        id: actor.id,
        systemId: (actor as { systemId?: string }).systemId,
        definition: definitionOf(actor),
      };
    case '@xstate.event':
      return { ...base, sourceId: event.sourceRef?.sessionId, event: toJsonSafe(event.event) };
    case '@xstate.snapshot':
      return { ...base, event: toJsonSafe(event.event), snapshot: toJsonSafe(event.snapshot) };
    default:
      return undefined;
  }
}

// Machine actors carry their config; other logic (promise, callback) has no definition to show.
function definitionOf(actor: AnyActorRef): JsonSafe {
  const logic = (actor as { logic?: unknown }).logic;
  const isMachine = typeof logic === 'object' && logic !== null && 'config' in logic && 'root' in logic;
  return isMachine ? serializeConfig(logic as AnyStateMachine) : null;
}
