import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { toolBatchMachine } from '../../machines/toolBatch.js';
import { checkInvariants, formatViolation } from '../../session/index.js';
import { coverage, describePath } from '../../testing/index.js';
import { batchPaths, executeBatchPath, hangsOnCrashedCursor } from './support/batchPaths.js';

const runs = batchPaths();
// Filled by the path tests, read by the coverage test declared after them (tests of a file run in order).
const visited = new Set<string>();

// XState warns when the batch sends ABORT or COMMIT to a call actor that already died (its stub was
// rejected); the batch does so by design of `abortStartedCalls`/`placing` today. Collected instead of
// printed, and checked below to be nothing else.
const warnings: string[] = [];
const warn = vi.spyOn(console, 'warn');
beforeAll(() => void warn.mockImplementation((message: unknown) => void warnings.push(String(message))));
afterAll(() => void warn.mockRestore());

describe('G01 toolBatch: shortest paths over every batch configuration', () => {
  for (const { config, input, paths } of runs) {
    describe(config.name, () => {
      for (const path of paths.filter((p) => !hangsOnCrashedCursor(p))) {
        it(describePath(path), async () => {
          const run = await executeBatchPath(path, input);
          for (const id of run.visitedStates) visited.add(id);
          expect(run.errors).toEqual([]);
          expect(run.snapshot.status).toBe('done');
          expect(run.pending.size).toBe(0);
          // Every report reached the turn, in commit (model) order, with the contexts its call returned.
          const results = run.log.events.filter((event) => event.type === 'tool/result');
          const committedIds = run.committed.map((event) => event.callId);
          expect(committedIds).toEqual(
            results.map((event) => (event.data as { callId: string }).callId).slice(0, committedIds.length),
          );
          expect(run.committed.flatMap((event) => event.contexts.map((c) => c.content))).toEqual(
            run.expected.contents,
          );
          const violations = checkInvariants(run.log.events, { stepContexts: [run.expected] });
          expect(violations.map(formatViolation)).toEqual([]);
        });
      }
    });
  }

  // Pins a machine bug the generated paths found (see `hangsOnCrashedCursor`); when it is fixed
  // this test fails, and these paths join the ones above.
  it('G01 toolBatch: KNOWN BUG — a call that dies while the next one is classified hangs the batch in `committing`', async () => {
    const stuck = runs.flatMap(({ input, paths }) =>
      paths.filter(hangsOnCrashedCursor).map((path) => ({ input, path })),
    );
    expect(stuck.length).toBeGreaterThan(0);
    for (const { input, path } of stuck) {
      const run = await executeBatchPath(path, input);
      for (const id of run.visitedStates) visited.add(id);
      expect(run.snapshot.status, describePath(path)).toBe('active');
      expect(run.snapshot.value).toBe('committing');
      const context = run.snapshot.context as { cursor: number; crashed: (string | null)[] };
      expect(context.crashed[context.cursor]).not.toBeNull();
    }
  });

  it('G01 toolBatch: warns only about events sent to call actors that died', () => {
    for (const message of warnings)
      expect(message).toMatch(/^Event "(ABORT|COMMIT)" was sent to stopped actor "call-\d/);
  });

  it('G01 toolBatch: reaches every state node (steps and microsteps)', () => {
    expect(visited.size).toBeGreaterThan(0);
    expect(coverage(toolBatchMachine, visited)).toEqual([]);
  });

  it('G01 toolBatch: prints its path counts', () => {
    const total = runs.reduce((sum, run) => sum + run.paths.length, 0);
    console.log(
      `toolBatch: ${total} paths over ${runs.length} configurations (${runs.map((r) => r.paths.length).join(', ')})`,
    );
    expect(total).toBeGreaterThan(0);
  });
});
