import { afterEach, describe, expect, it } from 'vitest';
import type { Agent } from '../../../machines/agent/createAgent.js';
import { createAgent } from '../../../machines/agent/createAgent.js';
import { createToolRegistry } from '../../../machines/toolCall/createToolRegistry.js';
import { scriptedModel } from '../../../model/index.js';
import { createSeams } from '../../../seams/index.js';
import { memoryStore } from '../../../session/index.js';
import {
  createApprovalAgent,
  createJsonlStore,
  createSessionDir,
  openJsonlStore,
  type Ran,
  typesOf,
  violationsOf,
} from './scenario.js';

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

const deployAndRead = {
  toolCalls: [
    { id: 'd1', name: 'deploy', arguments: { target: 'web' } },
    { id: 'r1', name: 'read', arguments: {} },
  ],
};

function textsOf(agent: Agent, type: string): string[] {
  return agent.log.events
    .filter((event) => event.type === type)
    .map((event) =>
      (event.data as { content: { text?: string }[] }).content.map((b) => b.text ?? '').join(''),
    );
}

async function suspend(script: unknown[], extra: Partial<Parameters<typeof createApprovalAgent>[0]> = {}) {
  const session = createSessionDir();
  const ran: Ran = [];
  const agent = createApprovalAgent({
    store: await createJsonlStore(session.file),
    script: script as never,
    ran,
    ...extra,
  });
  cleanups.push(session.cleanup, () => agent.dispose());
  agent.followup('ship it');
  await agent.whenIdle();
  expect(agent.status).toBe('suspended');
  return { agent, ran, session };
}

describe('deliveries while a turn is suspended', () => {
  it('V04 a followup sent while suspended runs after the resumed turn ends', async () => {
    const { agent, ran } = await suspend([deployAndRead, { text: 'deployed' }, { text: 'second answer' }]);
    const id = agent.followup('and then this');
    expect(agent.status).toBe('suspended');
    await agent.resolveApproval('a1', { outcome: 'allowed-once' });
    await agent.whenIdle();
    expect(agent.status).toBe('idle');
    expect(ran.map((r) => r.callId)).toEqual(['d1', 'r1']);
    const turnStarts = agent.log.events.filter((e) => e.type === 'turn/start').map((e) => e.data);
    expect(turnStarts).toEqual([
      expect.objectContaining({ turn: 1 }),
      expect.objectContaining({ turn: 2, trigger: expect.objectContaining({ itemId: id }) }),
    ]);
    // Turn 2 starts only after turn 1 ended.
    const ends = agent.log.events.findIndex((e) => e.type === 'turn/end');
    const second = agent.log.events.findIndex(
      (e) => e.type === 'turn/start' && (e.data as { turn: number }).turn === 2,
    );
    expect(second).toBeGreaterThan(ends);
    expect(violationsOf(agent.log.events, { atRest: true })).toEqual([]);
  });

  it("V04 a steer sent while suspended reaches the resumed turn's next step", async () => {
    const { agent } = await suspend([deployAndRead, { text: 'steered answer' }]);
    agent.steer('use the blue pool');
    await agent.resolveApproval('a1', { outcome: 'allowed-once' });
    await agent.whenIdle();
    const steering = agent.log.events.filter((e) => e.type === 'steering/message');
    expect(textsOf(agent, 'steering/message')).toEqual(['use the blue pool']);
    // Drained after the resumed batch (step 1's results), before step 2 asks the model.
    const steerAt = agent.log.events.indexOf(steering[0]!);
    const lastResult = agent.log.events.findLastIndex((e) => e.type === 'tool/result');
    const step2 = agent.log.events.findIndex(
      (e) => e.type === 'step/start' && (e.data as { step: number }).step === 2,
    );
    expect(steerAt).toBeGreaterThan(lastResult);
    expect(steerAt).toBeLessThan(step2);
    expect(violationsOf(agent.log.events, { atRest: true })).toEqual([]);
  });

  it('V04 an inject while suspended lands after the batch, also across a restart of the session', async () => {
    const { agent, session, ran } = await suspend([deployAndRead, { text: 'done' }]);
    agent.inject('note before the restart');
    await agent.dispose();
    // The turn stays suspended on disk: reopening it repairs nothing.
    const store = await openJsonlStore(session.file);
    expect(store.repairs).toEqual([]);
    const reopened = createApprovalAgent({ store, script: [{ text: 'done' }], ran });
    cleanups.push(() => reopened.dispose());
    await reopened.whenIdle();
    expect(reopened.status).toBe('suspended');
    reopened.inject('note after the restart');
    await reopened.resolveApproval('a1', { outcome: 'allowed-once' });
    await reopened.whenIdle();
    expect(textsOf(reopened, 'context/message')).toEqual([
      'note before the restart',
      'note after the restart',
    ]);
    const types = typesOf(reopened.log.events);
    const lastResult = types.lastIndexOf('tool/result');
    expect(types.slice(lastResult + 1, lastResult + 4)).toEqual([
      'context/message',
      'context/message',
      'step/end',
    ]);
    expect(violationsOf(reopened.log.events, { atRest: true })).toEqual([]);
  });

  it('V04 a held call that asks again when it is judged on resume suspends the step a second time', async () => {
    let readAsks = false;
    const { agent, ran } = await suspend([deployAndRead, { text: 'done' }], {
      register: (seams) =>
        seams.on(
          'tools/pre-execute',
          (exec, next) => (readAsks && exec.name === 'read' ? { kind: 'ask', reason: 'reads too' } : next()),
          {
            name: 'read-policy',
            prepend: true,
          },
        ),
    });
    expect(agent.log.events.find((e) => e.type === 'turn/suspended')?.data).toMatchObject({
      pending: ['a1'],
      held: ['r1'],
    });
    readAsks = true;
    await agent.resolveApproval('a1', { outcome: 'allowed-once' });
    await agent.whenIdle();
    expect(agent.status).toBe('suspended');
    expect(ran.map((r) => r.callId)).toEqual(['d1']);
    const suspensions = agent.log.events.filter((e) => e.type === 'turn/suspended').map((e) => e.data);
    expect(suspensions).toEqual([
      expect.objectContaining({ step: 1, pending: ['a1'], held: ['r1'], notStarted: [] }),
      expect.objectContaining({ step: 1, pending: ['a2'], held: [], notStarted: [] }),
    ]);
    expect(agent.approvals()).toEqual([
      expect.objectContaining({ requestId: 'a2', callId: 'r1', askedBy: 'read-policy' }),
    ]);
    expect(violationsOf(agent.log.events)).toEqual([]);
    await agent.resolveApproval('a2', { outcome: 'allowed-once' });
    await agent.whenIdle();
    expect(agent.status).toBe('idle');
    expect(ran.map((r) => r.callId)).toEqual(['d1', 'r1']);
    expect(violationsOf(agent.log.events, { atRest: true })).toEqual([]);
  });

  it('V04 cancel({ keepInbox: true }) while suspended cancels each request, aborts the unfinished calls, ends the turn aborted; the queued followup then runs', async () => {
    const { agent, ran } = await suspend([
      {
        toolCalls: [
          { id: 'd1', name: 'deploy', arguments: { target: 'web' } },
          { id: 'd2', name: 'deploy', arguments: { target: 'db' } },
          { id: 'r1', name: 'read', arguments: {} },
          { id: 'w1', name: 'wipe', arguments: {} },
        ],
      },
      { text: 'the followup ran' },
    ]);
    agent.followup('after the cancel');
    agent.cancel({ kind: 'user' }, { keepInbox: true });
    await agent.whenIdle();
    expect(agent.status).toBe('idle');
    expect(ran).toEqual([]);
    const resolutions = agent.log.events.filter((e) => e.type === 'approval/resolved').map((e) => e.data);
    expect(resolutions).toEqual([
      expect.objectContaining({ requestId: 'a1', outcome: 'cancelled', by: 'cancel' }),
      expect.objectContaining({ requestId: 'a2', outcome: 'cancelled', by: 'cancel' }),
    ]);
    const results = agent.log.events
      .filter((e) => e.type === 'tool/result')
      .map((e) => [
        (e.data as { callId: string }).callId,
        (e.data as { error?: { code: string } }).error?.code,
      ]);
    expect(results).toEqual([
      ['d1', 'ABORTED_BEFORE_DISPATCH'],
      ['d2', 'ABORTED_BEFORE_DISPATCH'],
      ['r1', 'ABORTED_BEFORE_DISPATCH'],
      ['w1', 'ABORTED_BEFORE_DISPATCH'],
    ]);
    const ends = agent.log.events.filter((e) => e.type === 'turn/end').map((e) => e.data);
    expect(ends).toEqual([
      expect.objectContaining({ turn: 1, reason: { kind: 'aborted' } }),
      expect.objectContaining({ turn: 2, reason: { kind: 'completed' } }),
    ]);
    expect(textsOf(agent, 'assistant/message')).toContain('the followup ran');
    expect(violationsOf(agent.log.events, { atRest: true })).toEqual([]);
  });

  it("V04 createAgent({ approval: 'defer' }) with memoryStore is a TypeError", () => {
    const options = { seams: createSeams(), tools: createToolRegistry(), model: scriptedModel([]) };
    expect(() => createAgent({ ...options, approval: 'defer' })).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the \`store\` option of createAgent() to outlive the process with \`approval: 'defer'\` (a deferred approval is answered later, maybe by another process), got no store (memoryStore); use createJsonlStore() or openJsonlStore()]`,
    );
    expect(() => createAgent({ ...options, store: memoryStore(), approval: 'defer' })).toThrow(TypeError);
  });
});
