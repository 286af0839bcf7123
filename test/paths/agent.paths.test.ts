import { describe, expect, it } from 'vitest';
import { agentMachine } from '../../machines/agent.js';
import { checkInvariants, checkLedger, formatViolation } from '../../session/index.js';
import { coverage, describePath } from '../../testing/index.js';
import { agentPaths, agentPathThrough, executeAgentPath } from './support/agentPaths.js';

const runs = agentPaths();
// Filled by the path tests, read by the coverage test declared after them (tests of a file run in order).
const visited = new Set<string>();

describe('G01 agent: shortest paths over every seam configuration', () => {
  for (const { config, input, paths } of runs) {
    describe(config.name, () => {
      for (const path of paths) {
        it(describePath(path), async () => {
          const run = await executeAgentPath(path, input);
          for (const id of run.visitedStates) visited.add(id);
          // A failed store ends the agent in `failed`: its last turn may stay open, queued items pending.
          const failed = path.steps.some((step) => step.event.type === 'STORE_FAILED');
          expect(run.errors).toEqual([]);
          expect(run.snapshot.status).toBe('done');
          expect(run.snapshot.value).toBe(failed ? 'failed' : 'disposed');
          expect(run.pending.size).toBe(0);
          expect(checkInvariants(run.log.events, { open: failed }).map(formatViolation)).toEqual([]);
          expect(
            checkLedger(run.notifications.events, { allowOutstanding: failed }).map(formatViolation),
          ).toEqual([]);
          // One-send-one-turn from the inbox side: each claimed message has its own turn, in claim order.
          const claimed = run.notifications
            .of('agent/inbox/dequeue')
            .filter((item) => !item.steering)
            .map((item) => item.id);
          // A store failure stops a claimed turn before it could write anything.
          if (!failed) expect(claimed).toEqual(run.turnItems);
        });
      }
    });
  }

  // Not on a shortest path (STEER changes nothing the graph keys on before a turn dies), so built by
  // hand: steering forwarded to a turn that dies is discarded by the agent with the turn's repair.
  it('G01 agent: steering forwarded to a turn that dies is discarded (clean ledger)', async () => {
    const input = runs[0]!.input;
    const path = agentPathThrough(input, ['SEND', 'STEER', 'xstate.error.actor.turn']);
    const run = await executeAgentPath(path, input);
    expect(run.errors).toEqual([]);
    expect(run.snapshot.value).toBe('disposed');
    expect(checkInvariants(run.log.events).map(formatViolation)).toEqual([]);
    expect(checkLedger(run.notifications.events).map(formatViolation)).toEqual([]);
    const steered = run.notifications.of('agent/inbox/enqueue').filter((item) => item.steering);
    expect(steered).toHaveLength(1);
    expect(run.notifications.of('agent/inbox/discard').map((event) => event.items)).toEqual([
      [{ id: steered[0]!.id, steering: true }],
    ]);
    const ends = run.log.events.filter((event) => event.type === 'turn/end').map((event) => event.data);
    expect(ends).toEqual([
      { turn: 1, reason: { kind: 'error', step: 0, message: 'turn actor failed', code: 'INTERNAL_ERROR' } },
    ]);
  });

  it('G01 agent: reaches every state node (steps and microsteps)', () => {
    expect(visited.size).toBeGreaterThan(0);
    expect(coverage(agentMachine, visited)).toEqual([]);
  });

  it('G01 agent: prints its path counts', () => {
    const total = runs.reduce((sum, run) => sum + run.paths.length, 0);
    console.log(
      `agent: ${total} paths over ${runs.length} configurations (${runs.map((r) => r.paths.length).join(', ')})`,
    );
    expect(total).toBeGreaterThan(0);
  });
});
