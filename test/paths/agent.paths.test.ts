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
          expect(run.errors).toEqual([]);
          expect(run.snapshot.status).toBe('done');
          expect(run.snapshot.value).toBe('disposed');
          expect(run.pending.size).toBe(0);
          expect(checkInvariants(run.log.events).map(formatViolation)).toEqual([]);
          expect(checkLedger(run.notifications.events).map(formatViolation)).toEqual([]);
          // One-send-one-turn from the inbox side: each claimed message has its own turn, in claim order.
          const claimed = run.notifications
            .of('agent/inbox/dequeue')
            .filter((item) => !item.steering)
            .map((item) => item.id);
          expect(claimed).toEqual(run.turnItems);
        });
      }
    });
  }

  // A gap the stand-in turn exposed (not on a shortest path: STEER changes nothing the graph keys on
  // before a turn dies). TODO(agent onError, reported with G01): when the turn actor dies, the steering
  // the agent forwarded to it is neither dequeued nor discarded. When fixed, this test fails; make it
  // expect a clean ledger.
  it('G01 agent: KNOWN GAP — steering forwarded to a turn that dies never leaves the ledger', async () => {
    const input = runs[0]!.input;
    const path = agentPathThrough(input, ['SEND', 'STEER', 'xstate.error.actor.turn']);
    const run = await executeAgentPath(path, input);
    expect(run.snapshot.value).toBe('disposed');
    expect(checkInvariants(run.log.events).map(formatViolation)).toEqual([]);
    expect(checkLedger(run.notifications.events).map((violation) => violation.code)).toEqual(['NEVER_ENDED']);
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
