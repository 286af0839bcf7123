import { type AnyActorLogic, type AnyActorRef, createActor, fromPromise, toPromise } from 'xstate';
import type { LogEvent } from '../../../kernel/index.js';
import { createInboxItem } from '../../../machines/runtime/inbox.js';
import { liveHandlesOf } from '../../../machines/runtime/liveHandles.js';
import type { TurnMachineServices } from '../../../machines/runtime/services.js';
import { createTurnLogic } from '../../../machines/turn/logic.js';
import { type SeamsPresent, type ToolBatchInput, turnSeams } from '../../../machines/turn/types.js';
import type { ModelAdapter } from '../../../model/types.js';
import type { AgentHandle, Seams } from '../../../seams/types.js';
import { createSessionLog, type SessionStore } from '../../../session/index.js';
import type { ToolRegistryCore } from '../../../tools/types.js';

/** A batch stand-in: appends `tool/call` + `tool/result` per call and reports `CALL_COMMITTED`. */
export function stubBatch(services: Pick<TurnMachineServices, 'log'>): AnyActorLogic {
  return fromPromise<{ aborted: boolean }, ToolBatchInput>(async ({ input }) => {
    const { parent } = input;
    for (const call of input.calls) {
      const { turn, step } = input;
      services.log.appendCore('tool/call', {
        turn,
        step,
        callId: call.id,
        name: call.name,
        arguments: call.arguments,
      });
      await Promise.resolve();
      const content = [{ type: 'text' as const, text: `ran ${call.name}` }];
      services.log.appendCore('tool/result', { turn, step, callId: call.id, content, isError: false });
      parent?.send({ type: 'CALL_COMMITTED', callId: call.id, contexts: [] });
    }
    return { aborted: false };
  });
}

const noTools: ToolRegistryCore = {
  register: () => {
    throw new Error('not used');
  },
  get: () => undefined,
  names: () => [],
  schemas: () => [],
};

/** A minimal agent handle for a turn run without an agent (only `id` and `log` are read). */
function fakeHandle(log: TurnMachineServices['log']): AgentHandle {
  const unsupported = () => {
    throw new Error('not available in a bare turn run');
  };
  return {
    id: 'a1',
    status: 'running',
    log,
    followup: unsupported,
    queue: unsupported,
    steer: unsupported,
    inject: unsupported,
    cancel: unsupported,
  };
}

export interface TurnRun {
  readonly actor: AnyActorRef;
  readonly events: readonly LogEvent[];
  readonly types: () => string[];
  readonly done: Promise<unknown>;
  readonly errors: unknown[];
}

/** Runs one turn for `text` against real seams, log and model, with a stub (or given) batch. */
export function runTurn(options: {
  seams: Seams;
  model: ModelAdapter;
  text: string;
  /** `'real'` runs the real toolBatch; a function builds a stand-in; the default is `stubBatch`. */
  batch?: 'real' | ((services: TurnMachineServices) => AnyActorLogic);
  maxRequestRetries?: number;
  store?: SessionStore;
}): TurnRun {
  const log = createSessionLog(options.store ? { store: options.store } : {});
  const errors: unknown[] = [];
  const agent = fakeHandle(log);
  const services: TurnMachineServices = {
    tools: noTools,
    cancelGraceMs: 50,
    log,
    seams: options.seams,
    model: options.model,
    agent,
    maxParallelToolCalls: 10,
    maxRequestRetries: options.maxRequestRetries ?? 3,
    sessionStartTimeoutMs: 1000,
    reportError: (failure) => errors.push(failure),
  };
  const set = options.seams.snapshot('a1');
  const scopeKey = 'turn';
  const seamsPresent = Object.fromEntries(turnSeams.map((name) => [name, set.has(name)])) as SeamsPresent;
  const base = createTurnLogic(services);
  const logic =
    options.batch === 'real'
      ? base
      : base.provide({ actors: { toolBatch: (options.batch ?? stubBatch)(services) as never } });
  const actor = createActor(logic, {
    input: {
      scopeKey,
      agentId: 'a1',
      turn: 1,
      item: createInboxItem('m1', options.text, {}, 'followup', true),
      seamsPresent,
      maxRequestRetries: services.maxRequestRetries,
      maxParallel: 10,
      maxStepsPerTurn: 100,
    },
  });
  // The turn's run scope lives in its actor system, opened before it starts.
  liveHandlesOf(actor.system).scopes.openAs(scopeKey, {
    seams: set,
    controller: new AbortController(),
    agent,
  });
  actor.subscribe({ error: (error) => errors.push(error) });
  const done = toPromise(actor);
  actor.start();
  return { actor, events: log.events, types: () => log.events.map((e) => e.type), done, errors };
}
