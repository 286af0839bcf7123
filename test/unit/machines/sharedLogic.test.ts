import { createTestAgent } from 'seamchart/testing';
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, setup } from 'xstate';
import { z } from 'zod';
import { type createAgent, createToolRegistry, defineTool } from '../../../index.js';
import { createActorWithServices, servicesOfSystem } from '../../../machines/runtime/systemServices.js';
import { createSeams } from '../../../seams/index.js';
import { eitherSignal } from '../../../tools/signals.js';

function texts(agent: ReturnType<typeof createAgent>): string[] {
  return agent.log.events
    .filter((event) => event.type === 'assistant/message')
    .map((event) => JSON.stringify((event.data as { content: unknown }).content));
}

describe('shared machine logic', () => {
  it('gives every agent the same provided logic, each running with its own services', async () => {
    const first = createTestAgent({ script: [{ text: 'one' }] });
    const second = createTestAgent({ script: [{ text: 'two' }] });
    const [one, two] = [first.agent, second.agent];
    expect(one.actor.logic).toBe(two.actor.logic);
    expect(one.actor.system).not.toBe(two.actor.system);
    one.followup('hi');
    two.followup('hi');
    await Promise.all([one.whenIdle(), two.whenIdle()]);
    expect(texts(one)).toEqual([JSON.stringify([{ type: 'text', text: 'one' }])]);
    expect(texts(two)).toEqual([JSON.stringify([{ type: 'text', text: 'two' }])]);
    await Promise.all([one.dispose(), two.dispose()]);
    first.expectInvariants();
    second.expectInvariants();
  });

  it('runs standalone calls of different registries side by side', async () => {
    const make = (suffix: string) => {
      const tools = createToolRegistry();
      tools.register(
        defineTool({
          name: 'echo',
          description: 'Echo',
          parameters: z.object({ text: z.string() }),
          execute: ({ text }) => `${text}${suffix}`,
        }),
      );
      return tools;
    };
    const seams = createSeams();
    const [a, b] = await Promise.all([
      make('-a').execute({ name: 'echo', arguments: '{"text":"x"}' }, { seams }),
      make('-b').execute({ name: 'echo', arguments: '{"text":"x"}' }, { seams }),
    ]);
    expect(a).toMatchObject({ isError: false, value: 'x-a' });
    expect(b).toMatchObject({ isError: false, value: 'x-b' });
  });

  it('resolves services during construction (initial delays) and refuses an unregistered system', () => {
    const machine = setup({
      actors: { work: fromPromise(async () => {}) },
      delays: {
        wait: (args: Parameters<typeof servicesOfSystem>[0]) => servicesOfSystem<{ ms: number }>(args).ms,
      },
    }).createMachine({ initial: 'a', states: { a: { after: { wait: 'b' } }, b: {} } });
    const actor = createActorWithServices(machine, { ms: 10 }, {});
    expect(servicesOfSystem<{ ms: number }>(actor)).toEqual({ ms: 10 });
    // XState records a failure of the initial state as the actor's error.
    const bare = createActor(machine).getSnapshot() as { status: string; error?: unknown };
    expect(bare.status).toBe('error');
    expect(String(bare.error)).toMatch(/No services are registered for this actor system/);
  });
});

describe('eitherSignal', () => {
  it('aborts with the reason of whichever signal aborts first', () => {
    const a = new AbortController();
    const b = new AbortController();
    const either = eitherSignal(a.signal, b.signal);
    expect(either.aborted).toBe(false);
    b.abort('second');
    a.abort('first');
    expect(either.aborted).toBe(true);
    expect(either.reason).toBe('second');
  });

  it('is aborted at once when a signal already is', () => {
    const a = new AbortController();
    a.abort('early');
    const either = eitherSignal(new AbortController().signal, a.signal);
    expect(either.aborted).toBe(true);
    expect(either.reason).toBe('early');
  });
});
