import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent } from '../../../machines/agent/createAgent.js';
import {
  createApprovalAgent,
  createJsonlStore,
  createSessionDir,
  type Ran,
  typesOf,
  violationsOf,
} from './scenario.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Two deferred deploys, an allowed read, then an exclusive wipe. */
const batch = [
  {
    toolCalls: [
      { id: 'd1', name: 'deploy', arguments: { target: 'web' } },
      { id: 'd2', name: 'deploy', arguments: { target: 'db' } },
      { id: 'r1', name: 'read', arguments: {} },
      { id: 'w1', name: 'wipe', arguments: {} },
    ],
  },
  { text: 'all done' },
];

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function suspendedAgent(
  options: { maxParallelToolCalls?: number; deployConcurrency?: 'exclusive' } = {},
) {
  const session = createSessionDir();
  const ran: Ran = [];
  const agent = createApprovalAgent({
    store: await createJsonlStore(session.file),
    script: batch,
    ran,
    ...options,
  });
  cleanups.push(session.cleanup, () => agent.dispose());
  agent.followup('ship it');
  await agent.whenIdle();
  return { agent, ran, session };
}

function suspendedOf(agent: Agent) {
  return agent.log.events.find((event) => event.type === 'turn/suspended')?.data;
}

describe('deferred approvals suspend the turn', () => {
  it('V01 two parallel deferred calls, an allowed parallel call and an exclusive call: two requests, the allowed call held, the exclusive not started', async () => {
    const { agent, ran } = await suspendedAgent();
    expect(agent.status).toBe('suspended');
    expect(ran).toEqual([]);
    const requests = agent.log.events
      .filter((event) => event.type === 'approval/requested')
      .map((e) => e.data);
    expect(requests).toEqual([
      expect.objectContaining({
        requestId: 'a1',
        callId: 'd1',
        turn: 1,
        step: 1,
        tool: 'deploy',
        arguments: { target: 'web', env: 'prod' },
        argsHash: sha256('{"env":"prod","target":"web"}'),
        reason: 'deploy to web',
        askedBy: 'change-control',
      }),
      expect.objectContaining({ requestId: 'a2', callId: 'd2', arguments: { target: 'db', env: 'prod' } }),
    ]);
    expect(canonicalize({ target: 'db', env: 'prod' })).toBe('{"env":"prod","target":"db"}');
    expect(suspendedOf(agent)).toEqual({
      turn: 1,
      step: 1,
      pending: ['a1', 'a2'],
      held: ['r1'],
      notStarted: ['w1'],
      contexts: [],
    });
    expect(typesOf(agent.log.events)).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'tool/call',
      'approval/requested',
      'tool/call',
      'approval/requested',
      'tool/call',
      'turn/suspended',
    ]);
    expect(agent.approvals().map((request) => request.requestId)).toEqual(['a1', 'a2']);
    expect(violationsOf(agent.log.events)).toEqual([]);
  });

  it('V01 the first call exclusive and deferred: later calls still run their policy phases; the exclusive wipe is not started', async () => {
    const { agent, ran } = await suspendedAgent({ deployConcurrency: 'exclusive' });
    expect(agent.status).toBe('suspended');
    expect(ran).toEqual([]);
    // d1 (exclusive) parks and frees the barrier for policy only; d2 is exclusive too, so it waits.
    expect(suspendedOf(agent)).toEqual({
      turn: 1,
      step: 1,
      pending: ['a1'],
      held: [],
      notStarted: ['d2', 'r1', 'w1'],
      contexts: [],
    });
    expect(violationsOf(agent.log.events)).toEqual([]);
  });

  it('V01 with maxParallelToolCalls: 1 the parked call holds the only slot: nothing else starts', async () => {
    const { agent, ran } = await suspendedAgent({ maxParallelToolCalls: 1 });
    expect(agent.status).toBe('suspended');
    expect(ran).toEqual([]);
    expect(suspendedOf(agent)).toEqual({
      turn: 1,
      step: 1,
      pending: ['a1'],
      held: [],
      notStarted: ['d2', 'r1', 'w1'],
      contexts: [],
    });
    expect(violationsOf(agent.log.events)).toEqual([]);
  });
});
