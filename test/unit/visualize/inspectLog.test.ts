import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assign, createActor, fromPromise, setup, toPromise } from 'xstate';
import { z } from 'zod';
import { createTestAgent } from '../../../testing/index.js';
import { defineTool } from '../../../tools/index.js';
import { createInspectionLog } from '../../../visualize/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const cyclic: { self?: unknown; fn: () => number } = { fn: () => 1 };
cyclic.self = cyclic;

const doubler = setup({
  types: { context: {} as { n: number; extra: typeof cyclic } },
  actors: { double: fromPromise(async ({ input }: { input: number }) => input * 2) },
}).createMachine({
  id: 'doubler',
  context: { n: 2, extra: cyclic },
  initial: 'idle',
  states: {
    idle: { on: { GO: 'busy' } },
    busy: {
      invoke: {
        id: 'double',
        src: 'double',
        input: ({ context }) => context.n,
        onDone: { target: 'done', actions: assign({ n: ({ event }) => event.output }) },
      },
    },
    done: { type: 'final' },
  },
});

function tempLogPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'seamchart-inspect-'));
  dirs.push(dir);
  return join(dir, 'run.jsonl');
}

describe('createInspectionLog', () => {
  it('writes self-describing JSONL: actors with their definition, events and snapshots, all JSON-safe', async () => {
    const path = tempLogPath();
    const log = createInspectionLog(path);
    const actor = createActor(doubler, { inspect: log.inspect }).start();
    actor.send({ type: 'GO' });
    await toPromise(actor);
    log.close();

    const text = readFileSync(path, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const records = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, any>);
    for (const record of records) expect(JSON.parse(JSON.stringify(record))).toEqual(record);
    expect(records.map((record) => record.seq)).toEqual(records.map((_, index) => index));
    expect(new Set(records.map((record) => record.type))).toEqual(
      new Set(['@xstate.actor', '@xstate.event', '@xstate.snapshot']),
    );

    const [root, child] = records.filter((record) => record.type === '@xstate.actor');
    expect(root).toMatchObject({ sessionId: actor.sessionId, rootId: actor.sessionId });
    expect(root!.definition).toMatchObject({
      id: 'doubler',
      initial: 'idle',
      states: { busy: { invoke: { id: 'double', src: 'double', onDone: { target: 'done' } } } },
    });
    expect(child).toMatchObject({ id: 'double', definition: null });
    // Its start event names its parent as the source.
    const childInit = records.find(
      (record) => record.sessionId === child!.sessionId && record.event?.type === 'xstate.init',
    );
    expect(childInit).toMatchObject({ sourceId: actor.sessionId });

    const events = records.filter((record) => record.type === '@xstate.event').map((r) => r.event.type);
    expect(events).toEqual(expect.arrayContaining(['xstate.init', 'GO', 'xstate.done.actor.double']));
    const rootSnapshots = records.filter(
      (record) => record.type === '@xstate.snapshot' && record.sessionId === actor.sessionId,
    );
    expect(rootSnapshots.map((record) => record.snapshot.value)).toEqual(['idle', 'busy', 'done']);
    expect(rootSnapshots.at(-1)!.snapshot).toMatchObject({ status: 'done', context: { n: 4 } });
    // The cyclic context survives as data: the function dropped, the cycle marked.
    expect(rootSnapshots[0]!.snapshot.context.extra).toEqual({ self: '[Circular]' });
  });

  it('drops events after close instead of throwing into the running actor', () => {
    const path = tempLogPath();
    const log = createInspectionLog(path);
    const actor = createActor(doubler, { inspect: log.inspect }).start();
    log.close();
    log.close();
    expect(() => actor.send({ type: 'GO' })).not.toThrow();
    actor.stop();
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line).type)).toEqual([
      '@xstate.actor',
      '@xstate.event',
      '@xstate.snapshot',
    ]);
  });

  it('shows a call the batch steps (no actor) as a child of the batch, with its definition and its snapshots', async () => {
    const path = tempLogPath();
    const log = createInspectionLog(path);
    const echo = defineTool({
      name: 'echo',
      description: 'Echo the text',
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => text,
    });
    const { agent, seams, expectInvariants } = createTestAgent({
      tools: [echo],
      script: [{ toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'x' } }] }, { text: 'done' }],
      options: { inspect: log.inspect },
    });
    // A decision listener: the call is its toolCall machine, stepped inside the batch.
    seams.on('tools/pre-execute', (_exec, next) => next());
    agent.followup('go');
    await agent.whenIdle();
    await agent.dispose();
    expectInvariants();
    log.close();

    const records = readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, any>);
    const actors = records.filter((record) => record.type === '@xstate.actor');
    const batch = actors.find((record) => record.id === 'toolBatch');
    const call = actors.find((record) => record.id === 'call-0');
    expect(call).toMatchObject({ definition: { id: 'toolCall' } });
    const callInit = records.find(
      (record) => record.sessionId === call!.sessionId && record.event?.type === 'xstate.init',
    );
    expect(callInit).toMatchObject({ sourceId: batch!.sessionId });
    const values = records
      .filter((record) => record.type === '@xstate.snapshot' && record.sessionId === call!.sessionId)
      .map((record) => JSON.stringify(record.snapshot.value));
    expect(values[0]).toBe('{"preparing":"detaching"}');
    expect(values).toContain('{"preExecute":"deciding"}');
    expect(values).toContain('{"settled":"awaitingCommit"}');
    expect(values.at(-1)).toBe('"done"');
    const events = records
      .filter((record) => record.type === '@xstate.event' && record.sessionId === call!.sessionId)
      .map((record) => record.event.type);
    expect(events).toEqual(expect.arrayContaining(['detach.done', 'preExecute.done', 'COMMIT']));
  });
});
