import type { AnyMachineSnapshot, AnyStateMachine, EventObject } from 'xstate';
import { createInboxItem } from '../../../machines/runtime/inbox.js';
import { liveHandlesOf } from '../../../machines/runtime/liveHandles.js';
import type { TurnMachineServices } from '../../../machines/runtime/services.js';
import { createTurnLogic } from '../../../machines/turn/logic.js';
import {
  type SeamsPresent,
  type ToolBatchInput,
  type TurnContext,
  type TurnResume,
  turnSeams,
} from '../../../machines/turn/types.js';
import { graphEvents, turnMachine } from '../../../machines/turn.js';
import type { ModelAdapter } from '../../../model/types.js';
import { createSeams } from '../../../seams/index.js';
import type { AgentHandle } from '../../../seams/types.js';
import { createSessionLog, hashArguments, nextRequestId } from '../../../session/index.js';
import type { SessionLog } from '../../../session/types.js';
import {
  type MachinePath,
  type PathRun,
  recordNotifications,
  runPath,
  shortestSeamPaths,
} from '../../../testing/index.js';

/**
 * Dedup key of the turn graph. The context grows without bound (each STEER/INJECT appends, each continue
 * adds a step), and keying by the whole context gave 17,560 paths (81 s). Nodes are keyed instead by the
 * state value and what the FIFO rules and guards turn on: "some steering / some step contexts pending",
 * the step number capped at 2 (a second step is the first repeat), the cancel cause, a recorded failure
 * and the retry counter (bounded by `maxRequestRetries: 1`). Payload variants then share a node.
 */
export function serializeTurnState(snapshot: AnyMachineSnapshot): string {
  const c = snapshot.context as TurnContext;
  return JSON.stringify([
    snapshot.value,
    Math.min(c.step, 2),
    c.stepFifo.length > 0,
    c.steering.length > 0,
    c.cancel?.kind ?? null,
    c.failure !== null,
    c.request.failures,
    // A refused turn/start is written again once: the second refusal is a state of its own.
    c.refusals.rewritten.length,
  ]);
}

/** Events the real turn can receive: none from outside while its own turn/start append confirms itself. */
export function isTurnEventReachable(snapshot: AnyMachineSnapshot, event: EventObject): boolean {
  // A batch resumed to cancel is aborted from its start: it never suspends.
  const { resume } = snapshot.context as TurnContext;
  if (resume?.cancel && (event as { output?: { suspended?: unknown } }).output?.suspended !== undefined)
    return false;
  return snapshot.value !== 'opening' || event.type === 'TURN_OPENED' || event.type === 'INTERNAL_ERROR';
}

/** The turn's input for one seam configuration; one retry keeps the request-error loop short. */
export function turnInput(present: Readonly<Record<string, boolean>>, scopeKey = 'scope') {
  return {
    scopeKey,
    agentId: 'a1',
    turn: 1,
    item: createInboxItem('m1', 'hello', {}, 'followup', true),
    seamsPresent: present as SeamsPresent,
    maxRequestRetries: 1,
    maxParallel: 10,
    // Low enough that the step cap's edge is on a shortest path.
    maxStepsPerTurn: 2,
  };
}

/** Shortest turn paths for the `n + 2` configurations of the six turn seams. */
export function turnPaths() {
  const fresh = shortestSeamPaths(turnMachine, {
    seams: turnSeams,
    events: graphEvents,
    inputFor: (config) => turnInput(config.present),
    serializeState: serializeTurnState,
    filterEvents: isTurnEventReachable,
  });
  return [
    // A path ending in `opening` after a refused turn/start ends nowhere: the rewrite answers itself at once
    // (TURN_OPENED or a second INTERNAL_ERROR); the paths that go on from there run it.
    ...fresh.map((run) => ({
      ...run,
      paths: run.paths.filter((path) => path.steps.length < 2 || path.state.value !== 'opening'),
    })),
    // A turn re-entered from the log (approvals.md), answered or cancelled; every seam present.
    ...[null, { cause: { kind: 'user' as const }, keepInbox: false }].flatMap((cancel) =>
      shortestSeamPaths(turnMachine, {
        seamConfigs: [{ name: cancel ? 'resumed to cancel' : 'resumed', present: allPresent() }],
        events: graphEvents,
        input: { ...turnInput(allPresent()), resume: resumeOf(cancel) },
        serializeState: serializeTurnState,
        filterEvents: isTurnEventReachable,
      }),
    ),
  ];
}

const allPresent = (): Record<string, boolean> => Object.fromEntries(turnSeams.map((seam) => [seam, true]));

/** The resume of a step suspended on `a1` for call `c1` (answered allowed, unless the resume is a cancel). */
function resumeOf(cancel: TurnResume['cancel']): TurnResume {
  return {
    step: 1,
    calls: [suspendedCall],
    slots: [
      {
        kind: 'parked',
        requestId: 'a1',
        answer: { outcome: cancel ? 'cancelled' : 'allowed-once' },
        arguments: '{}',
      },
    ],
    contexts: [],
    steering: [],
    cancel,
  };
}

const suspendedCall = { type: 'tool-call' as const, id: 'c1', name: 'echo', arguments: '{}' };

/** What the log holds before a resumed turn starts: turn 1 suspended in step 1 on `a1`, and its answer. */
function writeSuspendedTurn(log: SessionLog, resume: TurnResume): void {
  const argsHash = hashArguments({});
  log.appendCore('turn/start', { turn: 1, trigger: { kind: 'message', source: { kind: 'user' } } });
  log.appendCore('user/message', { content: [{ type: 'text', text: 'hello' }], source: { kind: 'user' } });
  log.appendCore('step/start', { turn: 1, step: 1 });
  log.appendCore('assistant/message', { turn: 1, step: 1, content: [suspendedCall], finish: 'tool-calls' });
  writeParkedCall(log, 1, 1);
  log.appendCore('turn/suspended', {
    turn: 1,
    step: 1,
    pending: ['a1'],
    held: [],
    notStarted: [],
    contexts: [],
  });
  const outcome = resume.cancel ? 'cancelled' : 'allowed-once';
  log.appendCore('approval/resolved', { requestId: 'a1', outcome, argsHash });
}

/** A call `c1` that parked: its `tool/call` (unless in the log already) and a new `approval/requested`. */
function writeParkedCall(log: SessionLog, turn: number, step: number): void {
  const recorded = log.events.some(
    (event) => event.type === 'tool/call' && (event.data as { step: number }).step === step,
  );
  if (!recorded) log.appendCore('tool/call', { turn, step, callId: 'c1', name: 'echo', arguments: '{}' });
  log.appendCore('approval/requested', {
    requestId: nextRequestId(log.events),
    callId: 'c1',
    turn,
    step,
    tool: 'echo',
    arguments: {},
    argsHash: hashArguments({}),
    askedBy: 'p',
  });
}

export const unusedModel: ModelAdapter = {
  request: () => Promise.reject(new Error('the model is stubbed in path runs')),
} as unknown as ModelAdapter;

/** An agent handle for a machine run without `createAgent`: its delivery methods refuse. */
export function fakeAgent(log: SessionLog): AgentHandle {
  const unsupported = (): never => {
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

// The batch is a deferred stub; settling it writes what a real batch writes for its calls, so the log
// has the tool pairs the invariants ask for (an error leaves them to the turn's own repair).
function writeBatch(
  log: SessionLog,
  kind: 'done' | 'error',
  input: ToolBatchInput,
  payload: { aborted?: boolean; suspended?: unknown } | undefined,
): void {
  if (kind === 'error') return;
  // A batch resumed to cancel is aborted from its start, whatever the path's outcome says.
  const aborted = payload?.aborted === true || input.resume?.aborted === true;
  const { turn, step } = input;
  // A suspended batch recorded its call and the request it parked on (only `c1` parks in the graph).
  if (payload?.suspended !== undefined) {
    writeParkedCall(log, turn, step);
    return;
  }
  for (const [index, call] of input.calls.entries()) {
    // A resumed call's tool/call is in the log already.
    if (input.resume?.slots[index]?.kind !== 'parked')
      log.appendCore('tool/call', {
        turn,
        step,
        callId: call.id,
        name: call.name,
        arguments: call.arguments,
      });
    log.appendCore('tool/result', {
      turn,
      step,
      callId: call.id,
      content: [{ type: 'text', text: aborted ? 'aborted' : 'ok' }],
      isError: aborted,
      ...(aborted ? { error: { code: 'ABORTED_BEFORE_DISPATCH', message: 'aborted' } } : {}),
    });
  }
}

export interface TurnPathOptions {
  /** A variant of the turn logic (mutation tests); gets the run's log to misbehave with. */
  readonly mutate?: (logic: typeof turnMachine, log: SessionLog) => AnyStateMachine;
}

/** Executes one turn path with a real session log, real seams and the real turn actions. */
export async function executeTurnPath(
  path: MachinePath,
  input: ReturnType<typeof turnInput>,
  options: TurnPathOptions = {},
): Promise<
  PathRun<SessionLog> & { notifications: ReturnType<typeof recordNotifications>; reported: unknown[] }
> {
  const seams = createSeams({ logger: { error: () => {} } });
  const notifications = recordNotifications(seams);
  // The path's first steps after the initial state are INTERNAL_ERRORs only when turn/start was refused: once
  // (then written again) or twice (the turn ends unwritten).
  let refusals = 0;
  while (path.steps[refusals + 1]?.event.type === 'INTERNAL_ERROR') refusals++;
  const refuseTurnStart = refusals > 0;
  const refusedSteps = refusals;
  const log = createSessionLog();
  const { resume } = input as { resume?: TurnResume };
  if (resume) writeSuspendedTurn(log, resume);
  const realAppend = log.appendCore.bind(log);
  if (refuseTurnStart) {
    log.appendCore = ((type: string, data: never) => {
      if (type === 'turn/start' && refusals-- > 0) throw new Error('store refused turn/start');
      return realAppend(type as never, data);
    }) as SessionLog['appendCore'];
  }
  const agent = fakeAgent(log);
  const reported: unknown[] = [];
  const services: TurnMachineServices = {
    tools: { register: () => undefined, get: () => undefined, names: () => [], schemas: () => [] } as never,
    cancelGraceMs: 5_000,
    log,
    seams,
    model: unusedModel,
    agent,
    maxParallelToolCalls: 10,
    maxRequestRetries: input.maxRequestRetries,
    sessionStartTimeoutMs: 1_000,
    reportError: (failure) => reported.push(failure),
  };
  // The turn's run scope lives in its actor system, opened before it starts.
  const scopeKey = 'turn';
  const prepare = (actor: { system: Parameters<typeof liveHandlesOf>[0] }): void =>
    void liveHandlesOf(actor.system).scopes.openAs(scopeKey, {
      seams: seams.snapshot('a1'),
      controller: new AbortController(),
      agent,
    });
  // The model request and the flush are the turn's own phases, not actors: the path sends their outcomes.
  const logic = createTurnLogic(services).provide({
    actions: { startModelRequest: () => {}, startLogFlush: () => {} },
  });
  const run = await runPath(path, {
    logic: options.mutate ? options.mutate(logic, log) : logic,
    input: { ...input, scopeKey },
    prepare,
    events: graphEvents,
    quiesce: [
      { type: 'CANCEL', cause: { kind: 'user' }, keepInbox: false } as EventObject,
      { type: 'flush.done' },
    ],
    // turn/start confirms itself with TURN_OPENED (or fails with INTERNAL_ERROR): the machine sends those.
    selfSent: (event, index) =>
      event.type === 'TURN_OPENED' || (event.type === 'INTERNAL_ERROR' && index <= refusedSteps),
    onSettle: ({ kind, pending, payload }) => {
      if (pending.id !== 'toolBatch') return;
      writeBatch(log, kind, pending.input as ToolBatchInput, payload as { aborted?: boolean } | undefined);
      // A suspension names the request the batch really recorded.
      const suspended = (payload as { suspended?: { pending: string[] } } | undefined)?.suspended;
      if (suspended === undefined) return;
      const last = log.events.findLast((event) => event.type === 'approval/requested');
      const requestId = (last!.data as { requestId: string }).requestId;
      return { payload: { ...(payload as object), suspended: { ...suspended, pending: [requestId] } } };
    },
    log,
  });
  notifications.dispose();
  return { ...run, notifications, reported };
}
