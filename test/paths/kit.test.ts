import { describe, expect, it } from 'vitest';
import {
  coverage,
  describePath,
  runPath,
  seamConfigurations,
  shortestSeamPaths,
} from '../../testing/index.js';
import {
  createReviewLogic,
  type ReviewTrace,
  reviewGraphEvents,
  reviewMachine,
  reviewSeams,
} from './fixture/reviewMachine.js';

const runs = shortestSeamPaths(reviewMachine, {
  seams: reviewSeams,
  events: reviewGraphEvents,
  inputFor: (config) => ({ seamsPresent: config.present }),
});

describe('testing kit on a fixture machine', () => {
  it('builds n + 2 seam configurations: all empty, all present, each absent in turn', () => {
    expect(seamConfigurations(reviewSeams).map((config) => config.name)).toEqual([
      'all empty',
      'all present',
      'without check',
      'without audit',
    ]);
    expect(runs.map((run) => run.paths.length)).toEqual([6, 12, 8, 10]);
  });

  it('reaches the skipped seam state only through an eventless transition', () => {
    const allEmpty = runs[0]!.paths.map(describePath);
    expect(allEmpty).toContain('START → after.workTimeout');
    expect(allEmpty.some((line) => line.includes('check'))).toBe(false);
  });

  for (const { config, input, paths } of runs) {
    describe(config.name, () => {
      for (const path of paths) {
        it(describePath(path), async () => {
          const trace: ReviewTrace = { entries: [] };
          const run = await runPath(path, {
            logic: createReviewLogic(trace),
            input,
            events: reviewGraphEvents,
            quiesce: [{ type: 'CANCEL' }],
            log: trace,
          });
          expect(run.errors).toEqual([]);
          // Quiescent: finished, or idle (which nothing but START leaves).
          if (run.snapshot.value !== 'idle') expect(run.snapshot.status).toBe('done');
          expect(run.pending.size).toBe(0);
          // Real actions ran: the trace ends with the final state's entry (or nothing for denied/failed).
          const final = run.snapshot.value as string;
          if (final === 'done' || final === 'cancelled') expect(run.log.entries.at(-1)).toBe(final);
        });
      }
    });
  }

  it('reaches every state node, the transient ones through microstep inspection', async () => {
    const visited = new Set<string>();
    for (const { input, paths } of runs) {
      for (const path of paths) {
        const run = await runPath(path, {
          logic: createReviewLogic({ entries: [] }),
          input,
          events: reviewGraphEvents,
        });
        for (const id of run.visitedStates) visited.add(id);
      }
    }
    expect(coverage(reviewMachine, visited)).toEqual([]);
  });

  it('reports a node as uncovered when only settled values are counted', async () => {
    const settledOnly = new Set<string>();
    for (const path of runs[0]!.paths) {
      for (const step of path.steps) settledOnly.add(`review.${String(step.state.value)}`);
    }
    settledOnly.add('review');
    // With every seam empty, `checking` and `auditing` are left in the microstep that enters them (and
    // `denied` needs the check seam), so settled values alone miss them.
    expect(coverage(reviewMachine, settledOnly)).toEqual([
      'review.checking',
      'review.auditing',
      'review.denied',
    ]);
  });

  it('records a transient state from the microstep that enters it', async () => {
    const start = runs[0]!.paths.find((p) => describePath(p) === 'START')!;
    const run = await runPath(start, { logic: createReviewLogic({ entries: [] }), input: runs[0]!.input });
    expect(run.snapshot.value).toBe('done'); // quiescence settled `work` with its first listed outcome
    expect([...run.visitedStates]).toEqual(expect.arrayContaining(['review.checking', 'review.working']));
  });

  it('names the path and step when the real machine diverges from the graph', async () => {
    const path = runs[1]!.paths.find((p) => describePath(p) === 'START → done.check(kind:allow)')!;
    // A mutated implementation: the guard now denies everything.
    const mutated = createReviewLogic({ entries: [] }).provide({ guards: { denied: () => true } });
    await expect(runPath(path, { logic: mutated, input: runs[1]!.input })).rejects.toThrow(
      'In path "START → done.check(kind:allow)", step 2 (done.check(kind:allow)): expected state "working", received "denied"',
    );
  });

  it('names the invoke when a path settles a stub that is not running', async () => {
    // A path from the all-present graph run with the check seam empty: `check` never starts.
    const path = runs[1]!.paths.find((p) => describePath(p) === 'START → done.check(kind:allow)')!;
    const without = { seamsPresent: { check: false, audit: true } };
    const pathWithoutCheck = {
      ...path,
      steps: [path.steps[0]!, { ...path.steps[1]!, state: runs[2]!.paths[1]!.state }, path.steps[2]!],
    };
    await expect(
      runPath(pathWithoutCheck, { logic: createReviewLogic({ entries: [] }), input: without }),
    ).rejects.toThrow('expected invoke "check" to be running, but the pending stubs are [work]');
  });
});
