import { type AnyMachineSnapshot, type EventObject, fromCallback } from 'xstate';
import type { HookContext, ToolCallBlock } from '../../../kernel/index.js';
import { liveHandlesOf } from '../../../machines/runtime/liveHandles.js';
import { graphContextOf } from '../../../machines/toolBatch/graph.js';
import { createToolBatchLogic } from '../../../machines/toolBatch/logic.js';
import { holdsDispatch } from '../../../machines/toolBatch/rules.js';
import type {
  CallCommittedEvent,
  ToolBatchContext,
  ToolBatchInput,
  ToolBatchOutput,
} from '../../../machines/toolBatch/types.js';
import { graphEvents, toolBatchMachine } from '../../../machines/toolBatch.js';
import { createAbortedBeforeDispatch } from '../../../machines/toolCall/rules.js';
import { createSeams } from '../../../seams/index.js';
import { createSessionLog } from '../../../session/index.js';
import type { AcceptedStepContexts } from '../../../session/invariants/index.js';
import { repairEvents } from '../../../session/repair.js';
import type { SessionLog } from '../../../session/types.js';
import {
  type MachinePath,
  type PathRun,
  runPath,
  type SeamConfiguration,
  shortestSeamPaths,
} from '../../../testing/index.js';
import { createToolRegistryCore } from '../../../tools/index.js';

/**
 * The batch snapshots no seams (its calls do, and they are stubbed here), so its configurations are its
 * own knobs: how many calls and the pool size. The parallel/exclusive mix comes from the graph itself
 * (both classifications are graph events), so every mix of modes is traversed in each configuration.
 * One call; three calls one at a time (maxParallel 1); three calls through a pool of two (a commit frees
 * the slot the third call waits for); three calls with room for all (only barriers hold them back).
 */
export const batchConfigs = [
  { name: '1 call', calls: 1, maxParallel: 10 },
  { name: '3 calls, maxParallel 1', calls: 3, maxParallel: 1 },
  { name: '3 calls, maxParallel 2', calls: 3, maxParallel: 2 },
  { name: '3 calls, maxParallel 10', calls: 3, maxParallel: 10 },
] as const;
export type BatchConfig = (typeof batchConfigs)[number];

/** Tool-call blocks `c1…cN` (the ids `graphEvents` report for). */
export function batchCalls(count: number): ToolCallBlock[] {
  return Array.from({ length: count }, (_, index) => ({
    type: 'tool-call',
    id: `c${index + 1}`,
    name: 'echo',
    arguments: JSON.stringify({ text: `call ${index + 1}` }),
  }));
}

/**
 * Dedup key of the batch graph: the value and everything a guard can read from now on. Slots of
 * committed calls (`[0, cursor)`) never change again and no guard reads them, and slots of calls not
 * yet started stay at their initial values, so only the live slots `[cursor, started)` are kept; the
 * failure message is reduced to "failed". This is lossless for what the batch can still do, and it
 * takes three calls with a pool of ten from 1,801 paths to 473.
 */
export function serializeBatchState(snapshot: AnyMachineSnapshot): string {
  const c = snapshot.context as ToolBatchContext;
  const live = <T>(slots: readonly T[]) => slots.slice(c.cursor, c.started);
  return JSON.stringify([
    snapshot.value,
    c.started,
    c.cursor,
    c.preparing,
    live(c.settled),
    live(c.modes),
    live(c.crashed).map((crash) => crash !== null),
    live(c.waiting).map((wait) => wait?.kind ?? null),
    c.nextMode,
    c.aborted,
    c.failure !== null,
  ]);
}

/**
 * Events the real batch can receive: a stepped call's end only while that call is in flight (started,
 * not committed), and in `finishing` only what it sends itself (FINISH, or
 * INTERNAL_ERROR from an append that failed in the same step) — the batch leaves `finishing` before
 * anyone else can send it anything.
 */
export function isBatchEventReachable(snapshot: AnyMachineSnapshot, event: EventObject): boolean {
  const context = snapshot.context as ToolBatchContext;
  if (event.type === 'call.done' || event.type === 'call.error') {
    const index = (event as unknown as { index: number }).index;
    if (index < context.cursor || index >= context.started) return false;
  }
  const reported = reportIndex(context, event);
  // A call parks or is held only at the end of its policy phases (approvals.md): in the lane, live, once;
  // held only behind a parked call. To keep the graph small only the first call parks (the batch treats
  // every parked call alike; the library's V01 tests park two).
  const report = (event as { report?: unknown }).report;
  if (report === 'PARKED' || report === 'HELD') {
    if (reported === null || context.preparing !== reported || context.aborted) return false;
    if (context.settled[reported] || context.waiting[reported] !== null) return false;
    if (report === 'PARKED' && reported !== 0) return false;
    if (report === 'HELD' && !holdsDispatch(context)) return false;
  }
  return snapshot.value !== 'finishing' || event.type === 'FINISH' || event.type === 'INTERNAL_ERROR';
}

/** The call a report (`PREPARED_INPUT`, `call.report`) names, by its id in the batch input. */
function reportIndex(context: ToolBatchContext, event: EventObject): number | null {
  if (!['PREPARED_INPUT', 'call.report'].includes(event.type)) return null;
  const index = context.calls.findIndex((call) => call.id === (event as { callId?: unknown }).callId);
  return index < 0 ? null : index;
}

/**
 * Shortest batch paths per configuration. A path that ends in `finishing` is left out: the batch
 * leaves it by itself (it sends its own FINISH), and each such path is the prefix of the one that
 * continues with that FINISH to `done`.
 */
export function batchPaths(configs: readonly BatchConfig[] = batchConfigs) {
  return configs.map((config) => {
    const input: Omit<ToolBatchInput, 'scopeKey'> = {
      turn: 1,
      step: 1,
      calls: batchCalls(config.calls),
      maxParallel: config.maxParallel,
    };
    const seamConfig: SeamConfiguration = { name: config.name, present: {} };
    const [only] = shortestSeamPaths(toolBatchMachine, {
      seamConfigs: [seamConfig],
      input: { ...input, scopeKey: 'scope' },
      events: graphEvents,
      serializeState: serializeBatchState,
      filterEvents: isBatchEventReachable,
    });
    const paths = only!.paths.filter((path) => path.state.value !== 'finishing');
    return { config, input, paths };
  });
}

const contextFor = (callId: string): HookContext => graphContextOf(callId);

/**
 * A stubbed call's `call.done` as the real call would end it: one parked on a request nobody granted settles
 * `ABORTED_BEFORE_DISPATCH` (only an abort ends it), never with its body's success.
 */
function asParkedCallEnds(event: EventObject, log: SessionLog): EventObject {
  if (event.type !== 'call.done') return event;
  const { output } = event as unknown as { output: { callId: string } };
  const requested = log.events.find(
    (entry) =>
      entry.type === 'approval/requested' && (entry.data as { callId: string }).callId === output.callId,
  );
  if (requested === undefined) return event;
  return {
    ...event,
    output: { callId: output.callId, result: createAbortedBeforeDispatch() },
  } as EventObject;
}

export interface BatchPathRun extends PathRun<SessionLog> {
  /** `CALL_COMMITTED` events the stand-in parent received, in arrival order. */
  readonly committed: readonly CallCommittedEvent[];
  /**
   * The contexts the turn must record for this step: one per call whose success reached the log
   * (a stub that settled with a success returns `context of <callId>`), in log order.
   */
  readonly expected: AcceptedStepContexts;
}

/**
 * Where the batch leaves a state by itself: it sends its own FINISH from `finishing`, and an append that
 * fails raises INTERNAL_ERROR first. So a path's INTERNAL_ERROR right after a step into `finishing` is
 * the machine's own, caused by a refused append in that step; the run refuses that step's appends.
 */
function refusedAppendSteps(path: MachinePath): Set<number> {
  const indexes = new Set<number>();
  path.steps.forEach((step, index) => {
    if (step.state.value === 'finishing' && path.steps[index + 1]?.event.type === 'INTERNAL_ERROR')
      indexes.add(index);
  });
  return indexes;
}

/**
 * Executes one batch path under a stand-in turn. The turn part is what `toolBatch.harness.ts` does:
 * `turn/start`, the prompt, `step/start` and the `assistant/message` with the calls before the batch;
 * after it, the contexts it reported with `CALL_COMMITTED` as `context/message`s, `step/end` and
 * `turn/end` (an `error` output first gets the turn's repair of unpaired calls).
 *
 * Real: the log, `tool/call`/`tool/result` appends, the scope watch and the call table. Stubbed: the
 * `classifyNext` action (the path sends `classify.done`, picking the mode) and the stepped calls (`startSteppedCall`, `commitSteppedCall`:
 * the path sends their reports and their `call.done`/`call.error`). Stubs are chosen over real calls on
 * deferred seams because the path's events are the calls' *reports*: PREPARED and SETTLED are sent to
 * the batch just as a call's `_parent.send` would; a real call would report on its own schedule, and a
 * step that throws (`call.error`) cannot be provoked in a real one at all. A settled call returns one
 * context, so the reports carry data.
 */
export async function executeBatchPath(
  path: MachinePath,
  input: Omit<ToolBatchInput, 'scopeKey'>,
): Promise<BatchPathRun> {
  const log = createSessionLog();
  const seams = createSeams({ logger: { error: () => {} } });
  // The batch's run scope lives in its actor system (the stand-in turn's), opened before it starts.
  const scopeKey = 'batch';
  const prepare = (actor: { system: Parameters<typeof liveHandlesOf>[0] }): void =>
    void liveHandlesOf(actor.system).scopes.openAs(scopeKey, {
      seams: seams.snapshot(),
      controller: new AbortController(),
    });
  const refused = refusedAppendSteps(path);
  let refusing = false;
  const realAppend = log.appendCore.bind(log);
  log.appendCore = ((type: string, data: never) => {
    if (refusing) throw new Error(`store refused ${type}`);
    return realAppend(type as never, data);
  }) as SessionLog['appendCore'];
  const { turn, step, calls } = input;
  log.appendCore('turn/start', { turn, trigger: { kind: 'message', source: { kind: 'user' } } });
  log.appendCore('user/message', { content: [{ type: 'text', text: 'go' }], source: { kind: 'user' } });
  log.appendCore('step/start', { turn, step });
  log.appendCore('assistant/message', { turn, step, content: [...calls], finish: 'tool-calls' });

  const committed: CallCommittedEvent[] = [];
  const standIn = fromCallback<EventObject>(({ receive }) => {
    receive((event) => {
      if (event.type === 'CALL_COMMITTED') committed.push(event as CallCommittedEvent);
    });
  });
  const run = await runPath(path, {
    // The classification is stubbed (the path sends it, picking the mode).
    logic: createToolBatchLogic({
      tools: createToolRegistryCore(),
      seams,
      log,
      cancelGraceMs: 5_000,
    }).provide({
      actions: {
        classifyNext: () => {},
        startSteppedCall: () => {},
        commitSteppedCall: () => {},
      },
    }),
    input: { ...input, scopeKey },
    prepare,
    stub: [],
    events: graphEvents,
    parent: standIn,
    // Quiescence: abort (no new starts), then every started call reports and ends in cursor order with a
    // success (the batch accepts a call's `call.done` only at its commit).
    quiesce: [
      { type: 'ABORT' },
      ...calls.map((_, index) => ({
        type: 'classify.done',
        index,
        output: { mode: 'parallel' },
      })),
      ...calls.flatMap((call) => [
        { type: 'PREPARED_INPUT', callId: call.id, arguments: call.arguments },
        { type: 'call.report', report: 'PREPARED', callId: call.id },
        { type: 'call.report', report: 'SETTLED', callId: call.id },
      ]),
      ...graphEvents.filter((event) => event.type === 'call.done'),
    ],
    // A parked call that ends unanswered was aborted: its stub ends as the real call would.
    prepareEvent: (event) => asParkedCallEnds(event, log),
    prepareQuiesceEvent: (event) => asParkedCallEnds(event, log),
    selfSent: (event, index) => event.type === 'FINISH' || refused.has(index - 1),
    beforeStep: (_event, index) => {
      refusing = refused.has(index);
    },
    log,
  });
  refusing = false;
  const contents = log.events
    .filter((event) => event.type === 'tool/result' && !(event.data as { isError: boolean }).isError)
    .map((event) => contextFor((event.data as { callId: string }).callId).content);

  // The stand-in turn after the batch: what `tools` → `postBatchSteering` → `postStep` → `closing` writes.
  const output = run.snapshot.output as ToolBatchOutput | undefined;
  if (output?.error !== undefined) {
    for (const draft of repairEvents(log.events).events) {
      if (draft.type === 'tool/call' || draft.type === 'tool/result') log.appendCore(draft.type, draft.data);
    }
  }
  // A suspended batch: the stand-in turn records the suspension with the contexts it holds, and stays open.
  if (output?.suspended !== undefined) {
    log.appendCore('turn/suspended', {
      turn,
      step,
      pending: [...output.suspended.pending],
      held: [...output.suspended.held],
      notStarted: [...output.suspended.notStarted],
      contexts: committed.flatMap((event) => event.contexts),
    });
    return { ...run, committed, expected: { turn, step, contents } };
  }
  for (const event of committed) {
    for (const context of event.contexts) log.appendCore('context/message', context);
  }
  log.appendCore('step/end', { turn, step });
  log.appendCore('turn/end', {
    turn,
    reason:
      output?.error !== undefined
        ? { kind: 'error', step, message: output.error, code: 'INTERNAL_ERROR' }
        : output?.aborted
          ? { kind: 'aborted' }
          : { kind: 'completed' },
  });
  return { ...run, committed, expected: { turn, step, contents } };
}
