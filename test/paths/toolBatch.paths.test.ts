import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { toolBatchMachine } from '../../machines/toolBatch.js';
import { checkInvariants, formatViolation } from '../../session/index.js';
import { coverage, describePath } from '../../testing/index.js';
import { batchPaths, executeBatchPath } from './support/batchPaths.js';

const runs = batchPaths();
// Filled by the path tests, read by the coverage test declared after them (tests of a file run in order).
const visited = new Set<string>();

// XState warns when an event is sent to an actor that already stopped; the batch checks every delivery
// to a call (a call actor that died, its stub rejected, gets nothing). Collected instead of printed,
// and checked below to be none.
const warnings: string[] = [];
const warn = vi.spyOn(console, 'warn');
beforeAll(() => void warn.mockImplementation((message: unknown) => void warnings.push(String(message))));
afterAll(() => void warn.mockRestore());

describe('G01 toolBatch: shortest paths over every batch configuration', () => {
  for (const { config, input, paths } of runs) {
    describe(config.name, () => {
      for (const path of paths) {
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

  it('G01 toolBatch: sends nothing to a call actor that stopped (no XState warnings)', () => {
    expect(warnings).toEqual([]);
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
