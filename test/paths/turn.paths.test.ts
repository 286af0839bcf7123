import { describe, expect, it } from 'vitest';
import { turnMachine } from '../../machines/turn.js';
import { checkInvariants, formatViolation } from '../../session/index.js';
import { coverage, describePath } from '../../testing/index.js';
import { executeTurnPath, turnPaths } from './support/turnPaths.js';

const runs = turnPaths();
// Filled by the path tests, read by the coverage test declared after them (tests of a file run in order).
const visited = new Set<string>();

describe('G01 turn: shortest paths over every seam configuration', () => {
  for (const { config, input, paths } of runs) {
    describe(config.name, () => {
      for (const path of paths) {
        it(describePath(path), async () => {
          const run = await executeTurnPath(path, input as never);
          for (const id of run.visitedStates) visited.add(id);
          expect(run.errors).toEqual([]);
          // A suspended turn waits (its agent stops it; a resume is a new turn actor).
          const suspended = JSON.stringify(run.snapshot.value).includes('suspended');
          expect(run.snapshot.status).toBe(suspended ? 'active' : 'done');
          expect(run.pending.size).toBe(0);
          expect(checkInvariants(run.log.events).map(formatViolation)).toEqual([]);
        });
      }
    });
  }

  it('G01 turn: reaches every state node (steps and microsteps)', () => {
    expect(visited.size).toBeGreaterThan(0);
    expect(coverage(turnMachine, visited)).toEqual([]);
  });

  it('G01 turn: prints its path counts', () => {
    const total = runs.reduce((sum, run) => sum + run.paths.length, 0);
    console.log(
      `turn: ${total} paths over ${runs.length} configurations (${runs.map((r) => r.paths.length).join(', ')})`,
    );
    expect(total).toBeGreaterThan(0);
  });
});
