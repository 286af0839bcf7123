import { describe, expect, it } from 'vitest';
import { type AnyMachineSnapshot, createActor, toPromise } from 'xstate';
import { z } from 'zod';
import { ToolResultSchema } from '../../kernel/index.js';
import { fixedServices } from '../../machines/runtime/systemServices.js';
import { createToolCallActors } from '../../machines/toolCall/actors.js';
import { createToolCallLogic } from '../../machines/toolCall/logic.js';
import { type ToolCallContext, type ToolSeamsPresent, toolSeamKeys } from '../../machines/toolCall/types.js';
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

// The call's seams are snapshotted by the `detach` actor, so each configuration keeps only the detach
// outcomes whose `seamsPresent` matches it (plus the failures, which carry all-present).
const detachMatches = (
  present: ToolSeamsPresent,
  output: { seamsPresent?: ToolSeamsPresent; outcome?: string },
) =>
  output.outcome !== 'detached' || toolSeamKeys.every((key) => output.seamsPresent?.[key] === present[key]);
const eventsFor = (present: Readonly<Record<string, boolean>>) =>
  graphEvents.filter(
    (event) =>
      event.type !== 'xstate.done.actor.detach' ||
      detachMatches(
        present as ToolSeamsPresent,
        (event as unknown as { output: { seamsPresent: ToolSeamsPresent } }).output,
      ),
  );

// Dedup by what guards read: the context is bounded, but every payload variant (result, contexts)
// would otherwise make its own graph node and multiply the paths (1,551 → the count printed below)
// without reaching a new transition.
const serializeState = (snapshot: AnyMachineSnapshot): string => {
  const { seamsPresent, preparable, aborted, prepared, skipPost, hasFinalizer, result } =
    snapshot.context as ToolCallContext;
  return JSON.stringify({
    value: snapshot.value,
    seamsPresent,
    preparable,
    aborted,
    prepared,
    skipPost,
    hasFinalizer,
    hasResult: result !== null,
  });
};

const runs = [false, true].flatMap((batched) =>
  seamConfigurations(toolSeamKeys).map((config) => {
    const input = { scopeKey: 'scope', callKey: 'call', batched };
    const [only] = shortestSeamPaths(toolCallMachine, {
      seamConfigs: [config],
      input,
      events: eventsFor(config.present),
      serializeState,
    });
    return {
      name: `${batched ? 'batched' : 'standalone'}, ${config.name}`,
      present: config.present,
      batched,
      paths: only!.paths,
    };
  }),
);

const echo = defineTool({
  name: 'echo',
  description: 'Echo the text',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
  finalizeContent: () => undefined,
});

const GRACE_MS = 5_000;
/** Real services for one path: seams with pass-through listeners on the present seams, one open call. */
async function executePath(
  path: MachinePath,
  present: Readonly<Record<string, boolean>>,
  batched: boolean,
  afterSteps?: (run: AfterSteps) => Promise<void>,
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
  const real = createToolCallActors(fixedServices(services));
  let sealed = false;
  try {
    // The call opens its own scope and handles from its input (K02's shape).
    const run = await runPath(path, {
      logic: createToolCallLogic(services),
      input: { call: { callId: 'c1', name: 'echo', arguments: '{"text":"a"}' }, batched },
      stub: ['detach', 'prepare', 'preExecute', 'approval', 'guards', 'dispatch', 'postExecute', 'finalize'],
      events: graphEvents,
      quiesce: [{ type: 'COMMIT' }],
      // A detached outcome runs the real detach first, so sealing seals the call that was read.
      onSettle: async ({ kind, pending, payload }) => {
        // Any detach outcome is recorded; sealing then seals the call (reading it itself if need be).
        if (pending.id === 'detach' && kind === 'done') sealed = true;
        if (
          pending.id === 'detach' &&
          kind === 'done' &&
          (payload as { outcome: string }).outcome === 'detached'
        ) {
          // In the call's own system (as its child), where its handles are.
          await toPromise(
            createActor(real.detach, { input: pending.input as never, parent: pending.actor }).start(),
          );
        }
      },
      log: notifications,
      ...(afterSteps ? { afterSteps } : {}),
    });
    return { run, sealed };
  } finally {
    notifications.dispose();
  }
}

// Filled by the path tests, read by the coverage test declared after them (tests of a file run in order).
const visited = new Set<string>();

describe('G01 toolCall: shortest paths over every seam configuration', () => {
  for (const { name, present, batched, paths } of runs) {
    describe(name, () => {
      for (const path of paths) {
        it(describePath(path), async () => {
          const { run, sealed } = await executePath(path, present, batched);
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
  // its post-execute gets a second one. Detaching and the finalizer are ours and synchronous.
  const ours = new Set(['detach', 'finalize']);
  const abortThenCommit = async (run: AfterSteps): Promise<void> => {
    let advanced = 0;
    for (let round = 0; round < 8 && run.actor.getSnapshot().status === 'active'; round++) {
      const accepted = [{ type: 'ABORT' }, { type: 'COMMIT' }].filter((event) =>
        run.actor.getSnapshot().can(event),
      );
      for (const event of accepted) await run.send(event);
      const ownStub = [...run.pending.keys()].find((id) => ours.has(id));
      if (ownStub) await run.settleDefault(ownStub);
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
  for (const { name, present, batched, paths } of runs) {
    describe(`R01 ${name}: ABORT then COMMIT end the call within the grace`, () => {
      it(`${paths.length} paths`, async () => {
        const stuck: string[] = [];
        for (const path of paths) {
          await executePath(path, present, batched, abortThenCommit).catch((error: Error) =>
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
