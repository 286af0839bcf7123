import { describe, expect, it } from 'vitest';
import { assign } from 'xstate';
import type { AgentContext, AgentMachineServices } from '../../machines/agent/types.js';
import type { agentMachine } from '../../machines/agent.js';
import { checkInvariants, checkLedger, formatViolation } from '../../session/index.js';
import { describePath } from '../../testing/index.js';
import { agentPaths, executeAgentPath } from './support/agentPaths.js';

// The mutant claims two items per turn: the head goes to the turn as usual, the one behind it is taken
// off the queue with it. The machine's values still follow the graph (the claim is an assign in a
// transient state), so only the books can tell.
const claimTwo = (logic: typeof agentMachine, _services: AgentMachineServices) =>
  logic.provide({
    actions: {
      claimHead: assign(({ context }: { context: AgentContext }) => ({ queued: context.queued.slice(2) })),
    },
  });

describe('G01 mutation: an agent that claims two messages in one turn', () => {
  it('is caught by the generated agent paths (inbox ledger and one-send-one-turn)', async () => {
    const caught = new Map<string, string[]>();
    let executed = 0;
    // One configuration keeps the run short: session start only changes how the agent gets to `ready`.
    for (const { config, input, paths } of agentPaths().filter((run) => run.config.name === 'all empty')) {
      // A store failure ends a path in `failed`, with nothing the mutation could show.
      for (const path of paths.filter((p) => p.steps.every((step) => step.event.type !== 'STORE_FAILED'))) {
        const run = await executeAgentPath(path, input, { mutate: claimTwo });
        executed++;
        const claimed = run.notifications
          .of('agent/inbox/dequeue')
          .filter((item) => !item.steering)
          .map((item) => item.id);
        const problems = [
          ...checkInvariants(run.log.events).map(formatViolation),
          ...checkLedger(run.notifications.events).map(formatViolation),
          ...(run.snapshot.status === 'done' ? [] : ['the agent did not finish']),
        ];
        expect(claimed).toEqual(run.turnItems);
        if (problems.length > 0) caught.set(`${config.name}: ${describePath(path)}`, problems);
      }
    }
    expect(executed).toBeGreaterThan(0);
    expect(caught.size).toBeGreaterThan(0);
    // The swallowed item was enqueued, and is neither dequeued nor discarded.
    const messages = [...caught.values()].flat();
    expect(messages.every((message) => message.includes('inbox-ledger'))).toBe(true);
    expect(messages.some((message) => message.includes('[NEVER_ENDED]'))).toBe(true);
    // Only paths that claim with two items queued catch it; the real agent passes them all (agent.paths).
    for (const name of caught.keys()) expect(name).toMatch(/SEND|QUEUE|STEER|done\.turn/);
  });
});
