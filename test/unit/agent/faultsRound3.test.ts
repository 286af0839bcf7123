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
