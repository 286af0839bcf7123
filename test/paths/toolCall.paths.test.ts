import { describe, expect, it } from 'vitest';
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { z } from 'zod';
import { ToolResultSchema } from '../../kernel/index.js';
import { liveHandlesOf } from '../../machines/runtime/liveHandles.js';
import { createToolCallLogic } from '../../machines/toolCall/logic.js';
import { detachCall } from '../../machines/toolCall/phases.js';
import {
  type ToolCallContext,
  type ToolCallInput,
  type ToolSeamsPresent,
  toolSeamKeys,
} from '../../machines/toolCall/types.js';
import { graphEvents, toolCallMachine } from '../../machines/toolCall.js';
import { createSeams } from '../../seams/index.js';
import {
  type AfterSteps,
  coverage,
  describePath,
  type MachinePath,
  recordNotifications,
  runPath,
  seamConfigurations,
  shortestSeamPaths,
} from '../../testing/index.js';
import { createToolRegistryCore, defineTool } from '../../tools/index.js';

// The call's seams are snapshotted by the `detach` phase, so each configuration keeps only the detach
// outcomes whose `seamsPresent` matches it (plus the failures, which carry all-present).
const detachMatches = (
  present: ToolSeamsPresent,
  output: { seamsPresent?: ToolSeamsPresent; outcome?: string },
) =>
  output.outcome !== 'detached' || toolSeamKeys.every((key) => output.seamsPresent?.[key] === present[key]);
const eventsFor = (present: Readonly<Record<string, boolean>>) =>
  graphEvents.filter(
    (event) =>
      event.type !== 'detach.done' ||
      detachMatches(
        present as ToolSeamsPresent,
        (event as unknown as { output: { seamsPresent: ToolSeamsPresent } }).output,
      ),
  );

// Dedup by what guards read: the context is bounded, but every payload variant (result, contexts)
// would otherwise make its own graph node and multiply the paths (1,551 → the count printed below)
// without reaching a new transition.
const serializeState = (snapshot: AnyMachineSnapshot): string => {
  const { seamsPresent, aborted, prepared, recorded, skipPost, hasFinalizer, result } =
    snapshot.context as ToolCallContext;
  return JSON.stringify({
    value: snapshot.value,
    seamsPresent,
    aborted,
    prepared,
    recorded,
    skipPost,
    hasFinalizer,
    hasResult: result !== null,
  });
};

/** How a batched call may start besides fresh (approvals.md): behind a parked call, or re-entering from the log. */
const approvalStarts: readonly { readonly name: string; readonly input: Partial<ToolCallInput> }[] = [
  { name: 'behind a parked call', input: { holdDispatch: true } },
  {
    name: 'resumed parked, allowed',
    input: { resume: { as: 'parked', requestId: 'a1', answer: { outcome: 'allowed-once' } } },
  },
  {
    name: 'resumed parked, rejected',
    input: { resume: { as: 'parked', requestId: 'a1', answer: { outcome: 'rejected', reason: 'no' } } },
  },
  { name: 'resumed parked, unanswered', input: { resume: { as: 'parked', requestId: 'a1', answer: null } } },
  { name: 'resumed held', input: { resume: { as: 'held' } } },
  { name: 'resumed held, behind a parked call', input: { resume: { as: 'held' }, holdDispatch: true } },
];

const pathsOf = (config: ReturnType<typeof seamConfigurations>[number], input: ToolCallInput) => {
  const [only] = shortestSeamPaths(toolCallMachine, {
    seamConfigs: [config],
    input,
    events: eventsFor(config.present),
    serializeState,
  });
  return only!.paths;
};

const runs = [
  ...[false, true].flatMap((batched) =>
    seamConfigurations(toolSeamKeys).map((config) => ({
      name: `${batched ? 'batched' : 'standalone'}, ${config.name}`,
      present: config.present,
      batched,
      extra: {} as Partial<ToolCallInput>,
      paths: pathsOf(config, { scopeKey: 'scope', callKey: 'call', batched }),
    })),
  ),
  // The approval starts, batched, with every seam present (the seam axis is covered above).
  ...approvalStarts.map(({ name, input }) => {
    const config = seamConfigurations(toolSeamKeys)[1]!;
    return {
      name: `batched, ${config.name}, ${name}`,
      present: config.present,
      batched: true,
      extra: input,
      paths: pathsOf(config, { scopeKey: 'scope', callKey: 'call', batched: true, ...input }),
    };
  }),
];

const echo = defineTool({
  name: 'echo',
  description: 'Echo the text',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
  finalizeContent: () => undefined,
});

const GRACE_MS = 5_000;
// The first outcome listed for each phase: what quiescence (and R01, for our own phases) sends.
const phaseDefaults = (events: readonly EventObject[]): EventObject[] => {
  const seen = new Set<string>();
  return events.filter((event) => {
    const phase = /^(\w+)\.done$/.exec(event.type)?.[1];
    if (phase === undefined || seen.has(phase)) return false;
    seen.add(phase);
    return true;
  });
};

/**
 * Real services for one path: seams with pass-through listeners on the present seams, one open call.
 * The phases are stubbed (the path sends their outcomes), except that detaching really reads the call,
 * so sealing seals the call that was read.
 */
async function executePath(
  path: MachinePath,
  present: Readonly<Record<string, boolean>>,
  batched: boolean,
  afterSteps?: (run: AfterSteps) => Promise<void>,
  extra: Partial<ToolCallInput> = {},
) {
  const seams = createSeams({ logger: { error: () => {} } });
  if (present['tools/prepare']) seams.on('tools/prepare', () => undefined);
  if (present['tools/pre-execute']) seams.on('tools/pre-execute', (_exec, next) => next());
  if (present.guard) seams.guard(() => undefined);
  if (present['tools/execute']) seams.on('tools/execute', (_exec, next) => next());
  if (present['tools/post-execute']) seams.on('tools/post-execute', (_ctx, next) => next());
  if (present['tools/result']) seams.on('tools/result', () => {});
  const notifications = recordNotifications(seams);
  const tools = createToolRegistryCore();
  tools.register(echo);
  const services = { tools, seams, cancelGraceMs: GRACE_MS };
  const logic = createToolCallLogic(services).provide({
    actions: {
      runPhase: ({ context, system }, params) => {
        if (params.phase !== 'detach') return;
        const { scopes, calls } = liveHandlesOf(system);
        detachCall(services, calls.get(context.callKey), scopes.get(context.scopeKey), context);
      },
      startPhase: () => {},
    },
  });
  try {
    // The call opens its own scope and handles from its input (K02's shape).
    const run = await runPath(path, {
      logic,
      input: { call: { callId: 'c1', name: 'echo', arguments: '{"text":"a"}' }, batched, ...extra },
      stub: [],
      events: graphEvents,
      // A parked or held call waits for a resume that never comes here: it is aborted last.
      quiesce: [{ type: 'COMMIT' }, ...phaseDefaults(eventsFor(present)), { type: 'ABORT' }],
      log: notifications,
      ...(afterSteps ? { afterSteps } : {}),
    });
    // Any detach outcome is recorded (the call id is then known); sealing seals the call either way.
    const sealed = (run.snapshot.context as ToolCallContext).callId !== '';
    return { run, sealed };
  } finally {
    notifications.dispose();
  }
}

// Filled by the path tests, read by the coverage test declared after them (tests of a file run in order).
const visited = new Set<string>();

describe('G01 toolCall: shortest paths over every seam configuration', () => {
  for (const { name, present, batched, paths, extra } of runs) {
    describe(name, () => {
      for (const path of paths) {
        it(describePath(path), async () => {
          const { run, sealed } = await executePath(path, present, batched, undefined, extra);
          for (const id of run.visitedStates) visited.add(id);
          expect(run.errors).toEqual([]);
          expect(run.snapshot.status).toBe('done');
          expect(run.pending.size).toBe(0);
          const output = run.snapshot.output as { result: unknown };
          expect(ToolResultSchema.safeParse(output.result).success).toBe(true);
          expect(Object.isFrozen(output.result)).toBe(true);
          // `tools/result` fires exactly once for a sealed call with listeners, never otherwise.
          const results = run.log.of('tools/result');
          const context = run.snapshot.context as { seamsPresent: ToolSeamsPresent };
          expect(results).toHaveLength(sealed && context.seamsPresent['tools/result'] ? 1 : 0);
          if (results[0]) expect(results[0].result).toBe(output.result);
        });
      }
    });
  }

  // Whatever a path did, an ABORT (then a COMMIT, in that order, as a draining batch sends them)
  // ends the call within the cancel grace without any listener or body settling: a hostile
  // listener that never returns cannot hold it. A body that did not stop uses the first grace, so
  // its post-execute gets a second one. Detaching, guards and the finalizer are ours and synchronous.
  const ours = (present: Readonly<Record<string, boolean>>) =>
    phaseDefaults(eventsFor(present)).filter((event) =>
      ['detach.done', 'guards.done', 'finalize.done'].includes(event.type),
    );
  const abortThenCommit = (present: Readonly<Record<string, boolean>>) => async (run: AfterSteps) => {
    let advanced = 0;
    for (let round = 0; round < 8 && run.actor.getSnapshot().status === 'active'; round++) {
      const accepted = [{ type: 'ABORT' }, { type: 'COMMIT' }].filter((event) =>
        run.actor.getSnapshot().can(event),
      );
      for (const event of accepted) await run.send(event);
      const own = ours(present).find((event) => run.actor.getSnapshot().can(event));
      if (own) await run.send(own);
      else if (accepted.length === 0) {
        if (advanced >= 2 * GRACE_MS) break;
        await run.advance(GRACE_MS);
        advanced += GRACE_MS;
      }
    }
    const waiting = [...run.pending.keys()];
    if (run.actor.getSnapshot().status !== 'done' || waiting.length > 0)
      throw new Error(
        `still in ${JSON.stringify(run.actor.getSnapshot().value)} ${advanced} ms after ABORT and COMMIT, waiting on [${waiting.join(', ')}]`,
      );
  };
  for (const { name, present, batched, paths, extra } of runs) {
    describe(`R01 ${name}: ABORT then COMMIT end the call within the grace`, () => {
      it(`${paths.length} paths`, async () => {
        const stuck: string[] = [];
        for (const path of paths) {
          await executePath(path, present, batched, abortThenCommit(present), extra).catch((error: Error) =>
            stuck.push(`${describePath(path)}: ${error.message}`),
          );
        }
        expect(stuck).toEqual([]);
      });
    });
  }

  it('G01 toolCall: reaches every state node (steps and microsteps)', () => {
    expect(visited.size).toBeGreaterThan(0);
    expect(coverage(toolCallMachine, visited)).toEqual([]);
  });

  it('G01 toolCall: prints its path counts', () => {
    const total = runs.reduce((sum, run) => sum + run.paths.length, 0);
    console.log(
      `toolCall: ${total} paths over ${runs.length} configurations (${runs.map((r) => r.paths.length).join(', ')})`,
    );
    expect(total).toBeGreaterThan(0);
  });
});
