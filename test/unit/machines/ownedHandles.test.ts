import { describe, expect, it } from 'vitest';
import { createActor, toPromise } from 'xstate';
import { z } from 'zod';
import {
  checkInvariants,
  createAgent,
  createSeams,
  createToolCallLogic,
  createToolRegistry,
  defineTool,
  scriptedModel,
} from '../../../index.js';

/** A tool whose body waits until `expected` bodies have started, so the calls overlap for real. */
function createSlowEcho(expected: number) {
  let started = 0;
  let release!: () => void;
  const allStarted = new Promise<void>((resolve) => {
    release = resolve;
  });
  return defineTool({
    name: 'slow',
    description: 'Echoes its text once every slow call has started',
    parameters: z.object({ text: z.string() }),
    execute: async ({ text }) => {
      started += 1;
      if (started === expected) release();
      await allStarted;
      return `echo:${text}`;
    },
  });
}

/** A registry with one `echo` tool that returns its text. */
function createEchoRegistry(): ReturnType<typeof createToolRegistry> {
  const tools = createToolRegistry();
  tools.register(
    defineTool({
      name: 'echo',
      description: 'Echo',
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => text,
    }),
  );
  return tools;
}

function resultsOf(agent: ReturnType<typeof createAgent>): unknown[] {
  return agent.log.events
    .filter((event) => event.type === 'tool/result')
    .map((event) => (event.data as { content: unknown }).content);
}

describe('live handles have an owner', () => {
  it('K01 two agents created with the same id run a slow tool at the same time, each with its own result', async () => {
    const slow = createSlowEcho(2);
    const make = (text: string) => {
      const tools = createToolRegistry();
      tools.register(slow);
      return createAgent({
        id: 'same',
        seams: createSeams(),
        tools,
        model: scriptedModel([
          { toolCalls: [{ id: 'c1', name: 'slow', arguments: { text } }] },
          { text: `done ${text}` },
        ]),
      });
    };
    const one = make('one');
    const two = make('two');
    one.followup('go');
    two.followup('go');
    await Promise.all([one.whenIdle(), two.whenIdle()]);

    for (const [agent, text] of [
      [one, 'one'],
      [two, 'two'],
    ] as const) {
      expect(checkInvariants(agent.log.events)).toEqual([]);
      expect(resultsOf(agent)).toEqual([[{ type: 'text', text: `echo:${text}` }]]);
      const end = agent.log.events.find((event) => event.type === 'turn/end');
      expect(end?.data).toMatchObject({ reason: { kind: 'completed' } });
    }
    await Promise.all([one.dispose(), two.dispose()]);
  });

  it('K02 createToolCallLogic(services) runs one call from the public API alone', async () => {
    // The JSDoc example of createToolCallLogic, as written there.
    const tools = createEchoRegistry();
    const seams = createSeams();
    const logic = createToolCallLogic({ tools, seams, cancelGraceMs: 5_000 });
    const actor = createActor(logic, {
      input: { call: { callId: 'c1', name: 'echo', arguments: '{"text":"hi"}' } },
    }).start();
    const { callId, result } = await toPromise(actor);

    expect(callId).toBe('c1');
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'hi' }] });
  });

  it('K02 a standalone call reports invalid arguments as its result, like any other call', async () => {
    const tools = createEchoRegistry();
    const logic = createToolCallLogic({ tools, seams: createSeams(), cancelGraceMs: 5_000 });
    const actor = createActor(logic, {
      input: { call: { callId: 'c2', name: 'echo', arguments: '{"text":' } },
    }).start();
    const { result } = await toPromise(actor);
    expect(result.isError).toBe(true);
  });

  it('names the missing request when a toolCall is started with neither `call` nor `callKey`', async () => {
    const logic = createToolCallLogic({
      tools: createToolRegistry(),
      seams: createSeams(),
      cancelGraceMs: 5_000,
    });
    const actor = createActor(logic, { input: {} });
    const failed = toPromise(actor);
    actor.start();
    await expect(failed).rejects.toThrow(
      /Expected the toolCall input to carry `call: \{ callId, name, arguments \}`/,
    );
  });
});
