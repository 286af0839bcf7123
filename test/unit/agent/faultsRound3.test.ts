// Y03, Y07: faults and bad input found by outside probes (round 3), injected for real.
import { readFileSync } from 'node:fs';
import {
  checkInvariants,
  createJsonlStore,
  createToolRegistry,
  defineTool,
  openJsonlStore,
  pendingInboxItems,
  readJsonlLog,
  type ToolDefinition,
  type ToolRegistryCore,
} from 'seamchart';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_NESTED_DELIVERIES } from '../../../machines/agent/createAgent.js';
import type { FileIo } from '../../../session/stores/fileIo.js';
import { errnoError, faultIo } from '../session/faultIo.js';
import { sessionFiles } from '../session/sessionFiles.js';
import { createTestAgent, sleep } from './helpers.js';

const { freshPath } = sessionFiles('seamchart-faults3-');

function registryOf(...tools: ToolDefinition[]): ToolRegistryCore {
  const registry = createToolRegistry();
  for (const tool of tools) registry.register(tool);
  return registry;
}

async function until(predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 1_000 && !predicate(); i++) await sleep(2);
  expect(predicate()).toBe(true);
}

/** The real file system, except that writing a `turn/start` line fails with EIO while `refuse.turnStart`. */
function refusingTurnStart(): FileIo & { refuse: { turnStart: boolean } } {
  const base = faultIo({});
  const refuse = { turnStart: false };
  return {
    ...base,
    refuse,
    writeSync(fd, buffer, offset, length, position) {
      const text = Buffer.from(buffer.buffer, buffer.byteOffset + offset, length).toString('utf8');
      if (refuse.turnStart && text.includes('"type":"turn/start"')) throw errnoError('EIO', 'write');
      return base.writeSync(fd, buffer, offset, length, position);
    },
  };
}

describe('Y03 a refused turn/start write fails the agent at once', () => {
  it('Y03 49 queued prompts, turn/start refused: one agent/error, failed, nothing more claimed, all 49 still pending in the file', async () => {
    const path = freshPath();
    const io = refusingTurnStart();
    const store = await createJsonlStore(path, { id: 'y03', io });
    // A session start that takes a moment (a SessionStart hook): all 49 prompts are accepted before turn 1 opens.
    let started: () => void = () => {};
    const sessionStarted = new Promise<void>((done) => {
      started = done;
    });
    const { agent, notifications, expectInvariants } = createTestAgent({
      script: [{ text: 'never' }],
      register: (seams) => seams.on('agent/session-start', () => sessionStarted),
      agent: { store },
    });
    const ids: string[] = [];
    for (let i = 0; i < 49; i++) ids.push(agent.followup(`prompt ${i}`));
    io.refuse.turnStart = true;
    started();
    await until(() => agent.status === 'failed');
    await agent.whenIdle();
    expect(notifications.of('agent/error')).toHaveLength(1);
    expect(notifications.of('agent/inbox/dequeue')).toHaveLength(1);
    expect(agent.log.events.filter((e) => e.type === 'turn/start')).toHaveLength(0);
    expectInvariants({ open: true, allowOutstanding: true });
    await agent.dispose();
    expect(agent.status).toBe('failed');
    const { events } = await readJsonlLog(path);
    expect(checkInvariants(events)).toEqual([]);
    const reopened = await openJsonlStore(path);
    expect(pendingInboxItems(reopened.initialEvents).map((item) => item.accepted.id)).toEqual(ids);
    await reopened.close();
  });
});

describe('Y07 an inject() whose line would exceed maxLineBytes is refused', () => {
  const big = 'x'.repeat(4_000);

  it('Y07 idle: a TypeError naming the limit, and nothing is written', async () => {
    const path = freshPath();
    const store = await createJsonlStore(path, { maxLineBytes: 2_048 });
    const { agent, expectInvariants } = createTestAgent({
      script: [{ text: 'fine' }],
      agent: { store },
    });
    const before = readFileSync(path, 'utf8');
    expect(() => agent.inject(big)).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: agent.inject(): its context/message event would take a line of 4172 bytes, over maxLineBytes (2048); inject less content]`,
    );
    expect(agent.log.events).toEqual([]);
    expect(readFileSync(path, 'utf8')).toBe(before);
    // The agent goes on: a small injection and a turn still work.
    agent.inject('small');
    agent.followup('hello');
    await agent.whenIdle();
    await agent.dispose();
    expectInvariants();
    expect(checkInvariants((await readJsonlLog(path)).events)).toEqual([]);
  });

  it('Y07 mid-batch: refused at the call, the batch and the turn end as they would have', async () => {
    const path = freshPath();
    const store = await createJsonlStore(path, { maxLineBytes: 2_048 });
    let release: () => void = () => {};
    let started = false;
    const work = defineTool({
      name: 'work',
      description: 'work',
      parameters: z.object({}),
      execute: () =>
        new Promise<string>((done) => {
          started = true;
          release = () => done('worked');
        }),
    });
    const { agent, expectInvariants, eventTypes } = createTestAgent({
      script: [{ toolCalls: [{ id: 'c1', name: 'work', arguments: {} }] }, { text: 'done' }],
      tools: registryOf(work),
      agent: { store },
    });
    agent.followup('go');
    await until(() => started);
    const written = agent.log.events.length;
    expect(() => agent.inject(big)).toThrow(/over maxLineBytes \(2048\)/);
    expect(agent.log.events.length).toBe(written);
    release();
    await agent.whenIdle();
    await agent.dispose();
    expectInvariants();
    expect(eventTypes()).not.toContain('context/message');
    const ends = agent.log.events.filter((e) => e.type === 'turn/end').map((e) => e.data);
    expect(ends).toEqual([{ turn: 1, reason: { kind: 'completed' } }]);
    expect(checkInvariants((await readJsonlLog(path)).events)).toEqual([]);
  });
});

/** An agent over a fresh JSONL file whose prompt-submit listener waits until its turn is cancelled. */
async function agentWithSlowPromptHook(path: string) {
  let entered: () => void = () => {};
  const inPromptHook = new Promise<void>((done) => {
    entered = done;
  });
  const t = createTestAgent({
    script: [{ text: 'ran' }, { text: 'ran again' }],
    register: (seams) =>
      seams.on(
        'agent/prompt-submit',
        (c) =>
          new Promise((_, fail) => {
            entered();
            c.signal.addEventListener('abort', () => fail(c.signal.reason));
          }),
      ),
    agent: { store: await createJsonlStore(path) },
  });
  return { ...t, inPromptHook };
}

/** Resumes `path` with `resumePending: 'run'` and no listeners: the turns it runs. */
async function resumeAndRun(path: string) {
  const t = createTestAgent({
    script: [{ text: 'resumed' }],
    agent: { store: await openJsonlStore(path), resumePending: 'run' },
  });
  await sleep(20);
  await t.agent.whenIdle();
  await t.agent.dispose();
  t.expectInvariants();
  return t.agent.log.events.filter((e) => e.type === 'user/message').map((e) => e.data);
}

describe('Y04 a message cancelled before its prompt was recorded is discarded', () => {
  it('Y04 cancel during prompt-submit writes inbox/discarded{cancel} with the cancel; resume never runs it', async () => {
    const path = freshPath();
    const t = await agentWithSlowPromptHook(path);
    const id = t.agent.followup('rm -rf the project');
    await t.inPromptHook;
    t.agent.cancel();
    // Written with the cancel, not when the aborted turn finishes.
    const types = t.agent.log.events.map((e) => e.type);
    expect(types.indexOf('inbox/discarded')).toBeGreaterThan(-1);
    expect(types.indexOf('inbox/discarded')).toBeLessThan(types.indexOf('turn/end'));
    expect(t.eventData('inbox/discarded')).toEqual([{ ids: [id], cause: 'cancel' }]);
    await t.agent.whenIdle();
    await t.agent.dispose();
    t.expectInvariants({ atRest: true });
    expect(t.eventData('turn/end')).toEqual([{ turn: 1, reason: { kind: 'aborted' } }]);
    const reopened = await openJsonlStore(path);
    expect(pendingInboxItems(reopened.initialEvents)).toEqual([]);
    expect(reopened.repairs).toEqual([]);
    await reopened.close();
    expect(await resumeAndRun(path)).toEqual([]);
  });

  it('Y04 a dispose during prompt-submit still re-queues the message, and resume runs it once', async () => {
    const path = freshPath();
    const t = await agentWithSlowPromptHook(path);
    const id = t.agent.followup('keep me');
    await t.inPromptHook;
    await t.agent.dispose();
    expect(t.eventData('inbox/discarded')).toEqual([]);
    expect(t.eventData('turn/end')).toEqual([{ turn: 1, reason: { kind: 'disposed' } }]);
    const reopened = await openJsonlStore(path);
    expect(pendingInboxItems(reopened.initialEvents).map((item) => item.accepted.id)).toEqual([id]);
    await reopened.close();
    expect(await resumeAndRun(path)).toMatchObject([{ content: [{ type: 'text', text: 'keep me' }] }]);
  });
});

describe('Y08 resume announcements and continuation reasons', () => {
  it('Y08 re-queued items are announced with agent/inbox/enqueue before session-start', async () => {
    const path = freshPath();
    const first = createTestAgent({ script: [], agent: { store: await createJsonlStore(path) } });
    first.agent.queue('one');
    first.agent.queue('two');
    await first.agent.dispose();
    const order: string[] = [];
    const t = createTestAgent({
      script: [{ text: 'a' }, { text: 'b' }],
      register: (seams) => {
        seams.on('agent/inbox/enqueue', (c) => void order.push(`enqueue ${c.id}`));
        seams.on('agent/session-start', (c) => void order.push(`session-start ${c.source}`));
      },
      agent: { store: await openJsonlStore(path) },
    });
    await sleep(10);
    expect(order).toEqual(['enqueue m1', 'enqueue m2', 'session-start resume']);
    await t.agent.dispose();
  });

  it('Y08 a continuation reason is drained as steering/message without an itemId', async () => {
    let continued = false;
    const t = createTestAgent({
      script: [{ text: 'first' }, { text: 'second' }],
      register: (seams) =>
        seams.on('agent/turn-continuation', () => {
          if (continued) return { action: 'stop' as const };
          continued = true;
          return {
            action: 'continue' as const,
            reason: {
              content: [{ type: 'text' as const, text: 'keep going' }],
              source: { kind: 'plugin' as const, plugin: 'y08' },
            },
          };
        }),
    });
    t.agent.followup('go');
    await t.agent.whenIdle();
    const steering = t.eventData('steering/message');
    expect(steering).toHaveLength(1);
    expect(steering[0]).not.toHaveProperty('itemId');
    expect(steering[0]).toMatchObject({ content: [{ type: 'text', text: 'keep going' }] });
    await t.agent.dispose();
    t.expectInvariants({ atRest: true });
  });
});

describe('Y10 a listener that delivers from every delivery notification is stopped', () => {
  for (const seam of ['agent/inbox/enqueue', 'session/event'] as const) {
    it(`Y10 followup from ${seam} on every delivery: stopped at MAX_NESTED_DELIVERIES with a TypeError naming the loop`, async () => {
      const t = createTestAgent({
        script: Array.from({ length: 200 }, () => ({ text: 'ok' })),
        register: (seams) => {
          if (seam === 'agent/inbox/enqueue') seams.on(seam, () => void t.agent.queue('again'));
          else
            seams.on(seam, ({ event }) => {
              if (event.type === 'inbox/accepted') t.agent.queue('again');
            });
        },
      });
      const timer = new Promise<string>((done) => setTimeout(() => done('fired'), 5));
      t.agent.followup('start');
      const accepted = t.agent.log.events.filter((e) => e.type === 'inbox/accepted');
      expect(accepted.length).toBe(MAX_NESTED_DELIVERIES + 1);
      const errors = t.notifications.of('agent/error').map((e) => e.error.message);
      expect(errors.some((message) => message.includes('loops without end'))).toBe(true);
      expect(errors.join('\n')).toContain(`${MAX_NESTED_DELIVERIES} deliveries were made`);
      // Still responsive: timers fire and a cancel takes effect.
      expect(await timer).toBe('fired');
      t.agent.cancel();
      await t.agent.whenIdle();
      expect(t.agent.status).toBe('idle');
      await t.agent.dispose();
      t.expectInvariants({ allowOutstanding: true });
    });
  }
});

describe('Y06 cancel during a session-start listener that waits', () => {
  it('Y06 cancel() ends the session start at once (its signal aborts), the queued message is discarded', async () => {
    let startSignal: AbortSignal | undefined;
    const t = createTestAgent({
      script: [{ text: 'never' }],
      // Ignores its signal on purpose: leaving the state must not wait for it.
      register: (seams) =>
        seams.on('agent/session-start', (c) => {
          startSignal = c.signal;
          return new Promise<void>(() => {});
        }),
      agent: { cancelGraceMs: 200 },
    });
    const id = t.agent.followup('hello');
    await until(() => startSignal !== undefined);
    t.agent.cancel();
    expect(startSignal?.aborted).toBe(true);
    await t.agent.whenIdle();
    expect(t.agent.status).toBe('idle');
    expect(t.eventData('inbox/discarded')).toEqual([{ ids: [id], cause: 'cancel' }]);
    expect(t.eventTypes()).toEqual([]);
    // The agent goes on: the next message runs.
    t.agent.followup('again');
    await t.agent.whenIdle();
    expect(t.eventData('turn/end')).toEqual([{ turn: 1, reason: { kind: 'completed' } }]);
    await t.agent.dispose();
    t.expectInvariants({ atRest: true });
  });
});
