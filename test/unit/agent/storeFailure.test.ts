// D03: a store whose writes fail (a full disk mid-line, a failing fsync) stops the agent in `failed`.
import { readFileSync } from 'node:fs';
import {
  checkInvariants,
  createJsonlStore,
  defineTool,
  openJsonlStore,
  pendingInboxItems,
  readJsonlLog,
  type ScriptStep,
  SessionStoreError,
} from 'seamchart';
import { createTestAgent } from 'seamchart/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { faultIo } from '../session/faultIo.js';
import { sessionFiles } from '../session/sessionFiles.js';
import { memoryLogger, sleep } from './helpers.js';

const { freshPath } = sessionFiles('seamchart-store-failure-');

async function until(predicate: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !predicate(); i++) await sleep(2);
  expect(predicate()).toBe(true);
}

/** An agent over a JSONL store with injected faults and one tool, `work`, whose body the test controls. */
async function faultyAgent(script: readonly ScriptStep[], body: (signal: AbortSignal) => Promise<string>) {
  const path = freshPath();
  const io = faultIo({});
  const store = await createJsonlStore(path, { id: 'd03', io });
  const bodies: AbortSignal[] = [];
  const work = defineTool({
    name: 'work',
    description: 'work',
    parameters: z.object({}),
    execute: async (_args, context) => {
      bodies.push(context.signal);
      return body(context.signal);
    },
  });
  const { agent, notifications, expectInvariants } = createTestAgent({
    script,
    tools: [work],
    options: { logger: memoryLogger(), store },
  });
  return { path, io, agent, bodies, notifications, expectInvariants };
}

/** The file's events, line by line, as written (no repair): every line complete, after the header. */
function linesOnDisk(path: string): unknown[] {
  const text = readFileSync(path, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line));
}

/** The file loads, its lines are exactly the in-memory log, and a read-only load shows the repair it needs. */
async function expectFileEqualsMemory(
  path: string,
  inMemory: readonly unknown[],
  lastTurn: 'open' | 'ended',
) {
  expect(linesOnDisk(path)).toEqual(inMemory);
  const loaded = await readJsonlLog(path);
  expect(loaded.events.slice(0, inMemory.length)).toEqual(inMemory);
  if (lastTurn === 'open')
    expect(loaded.events.at(-1)).toMatchObject({
      type: 'turn/end',
      data: { reason: { kind: 'interrupted' } },
    });
  else expect(loaded.events).toEqual(inMemory);
}

const count = (events: readonly { type: string }[], type: string) =>
  events.filter((e) => e.type === type).length;
const workCall = { toolCalls: [{ id: 'c1', name: 'work', arguments: {} }] };

/** What D03 asks of every failed session: the file loads, equals memory, and the agent refuses more. */
async function expectFailedSession(setup: Awaited<ReturnType<typeof faultyAgent>>, queuedId: string) {
  const { agent, path, notifications } = setup;
  await until(() => agent.status === 'failed');
  await agent.whenIdle();
  expect(notifications.of('agent/status').at(-1)).toMatchObject({
    status: 'failed',
  });
  // Every later delivery throws the store's error, and nothing is written.
  expect(() => agent.followup('after')).toThrow(SessionStoreError);
  expect(() => agent.queue('after')).toThrow(SessionStoreError);
  expect(() => agent.steer('after')).toThrow(SessionStoreError);
  expect(() => agent.inject('after')).toThrow(SessionStoreError);
  const inMemory = agent.log.events;
  expect(count(inMemory, 'turn/start')).toBe(1);
  expect(count(inMemory, 'turn/end')).toBe(0);
  // The queued message stays outstanding: it waits in the file for a resume.
  setup.expectInvariants({ open: true, allowOutstanding: true });
  await agent.dispose();
  expect(agent.status).toBe('failed');
  // The file loads without repair (no torn line), equals the in-memory log, and has one turn/start.
  await expectFileEqualsMemory(path, inMemory, 'open');
  // Reopening (the lock was released by dispose) repairs the open turn to `interrupted`.
  const reopened = await openJsonlStore(path);
  const events = reopened.initialEvents;
  expect(count(events, 'turn/start')).toBe(1);
  expect(events.filter((e) => e.type === 'turn/end').map((e) => e.data)).toMatchObject([
    { turn: 1, reason: { kind: 'interrupted' } },
  ]);
  expect(checkInvariants(events)).toEqual([]);
  // The queued message was never run and stays re-queueable from the file.
  expect(pendingInboxItems(events).map((item) => item.accepted.id)).toContain(queuedId);
  await reopened.close();
}

describe('D03 a failed write stops the agent in failed', () => {
  it('D03 a delivery whose line fails mid-way (ENOSPC) fails the agent and aborts the running tool body', async () => {
    let release: () => void = () => {};
    const setup = await faultyAgent([workCall, { text: 'never' }, { text: 'never' }], (signal) => {
      return new Promise((done) => {
        release = () => done('finished');
        signal.addEventListener('abort', () => done('aborted'));
      });
    });
    const { agent, io, bodies } = setup;
    agent.followup('first');
    const queuedId = agent.followup('second');
    await until(() => bodies.length === 1);
    const before = agent.log.events.length;
    // The disk fills 30 bytes into the next line.
    io.failWritesAfter(30);
    let refused: unknown;
    try {
      agent.followup('third, which does not fit');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(SessionStoreError);
    expect(refused).toMatchObject({ code: 'WRITE_FAILED', cause: { code: 'ENOSPC' } });
    expect(agent.log.events.length).toBe(before);
    await until(() => bodies[0]?.aborted === true);
    release();
    await expectFailedSession(setup, queuedId);
  });

  it('D03 a write of the turn itself that fails mid-line fails the agent: no second turn/start', async () => {
    const setup = await faultyAgent([workCall, { text: 'never' }, { text: 'never' }], async () => {
      // The tool's result is the next line; the disk fills 40 bytes into it.
      setup.io.failWritesAfter(40);
      return 'x'.repeat(500);
    });
    setup.agent.followup('first');
    const queuedId = setup.agent.followup('second');
    await expectFailedSession(setup, queuedId);
    expect(count(setup.agent.log.events, 'tool/result')).toBe(0);
  });

  it('D03 a failing fsync at the end of a turn fails the agent before the next queued turn starts', async () => {
    const setup = await faultyAgent([{ text: 'one' }, { text: 'never' }], async () => 'unused');
    const { agent, io } = setup;
    io.failFsyncNow('EIO');
    agent.followup('first');
    const queuedId = agent.followup('second');
    await until(() => agent.status === 'failed');
    await agent.whenIdle();
    const inMemory = agent.log.events;
    // Turn 1 was written whole; the fsync after it failed, so turn 2 never started.
    expect(count(inMemory, 'turn/start')).toBe(1);
    expect(checkInvariants(inMemory, { open: true })).toEqual([]);
    expect(() => agent.followup('after')).toThrow(SessionStoreError);
    await agent.dispose();
    expect(agent.status).toBe('failed');
    // The fsync came after turn/end was written: the turn is whole on disk.
    await expectFileEqualsMemory(setup.path, inMemory, 'ended');
    const reopened = await openJsonlStore(setup.path);
    expect(checkInvariants(reopened.initialEvents)).toEqual([]);
    expect(pendingInboxItems(reopened.initialEvents).map((item) => item.accepted.id)).toContain(queuedId);
    await reopened.close();
  });

  it('D03 an fsync that starts failing mid-turn fails the agent at the turn-end flush: the queued turn never starts', async () => {
    let started = false;
    const setup = await faultyAgent([workCall, { text: 'done' }, { text: 'never' }], async () => {
      started = true;
      setup.io.failFsyncNow('EIO');
      return 'ok';
    });
    setup.agent.followup('first');
    const queuedId = setup.agent.followup('second');
    await until(() => started);
    await until(() => setup.agent.status === 'failed');
    await setup.agent.whenIdle();
    expect(count(setup.agent.log.events, 'turn/start')).toBe(1);
    expect(checkInvariants(setup.agent.log.events, { open: true })).toEqual([]);
    await setup.agent.dispose();
    await expectFileEqualsMemory(setup.path, setup.agent.log.events, 'ended');
    const reopened = await openJsonlStore(setup.path);
    expect(checkInvariants(reopened.initialEvents)).toEqual([]);
    expect(pendingInboxItems(reopened.initialEvents).map((item) => item.accepted.id)).toContain(queuedId);
    await reopened.close();
  });
});
