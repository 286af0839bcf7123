import { describe, expect, it, vi } from 'vitest';
import { Actor, type AnyActorRef, createActor, type InspectionEvent, toPromise } from 'xstate';
import { z } from 'zod';
import { createToolRegistry } from '../../../machines/toolCall/createToolRegistry.js';
import { createToolCallLogic } from '../../../machines/toolCall/logic.js';
import { createSeams } from '../../../seams/index.js';
import type { Seams } from '../../../seams/types.js';
import { createTestAgent } from '../../../testing/index.js';
import { createToolRegistryCore, defineTool } from '../../../tools/index.js';

/**
 * Every actor an agent's system creates, in creation order, as `@xstate.actor` reports them; a call the
 * batch steps is reported too (inspection still shows it) but is no actor, so it is kept apart.
 */
function recordActors(): {
  readonly actors: AnyActorRef[];
  readonly stepped: AnyActorRef[];
  readonly parents: Map<AnyActorRef, AnyActorRef>;
  inspect(event: InspectionEvent): void;
} {
  const actors: AnyActorRef[] = [];
  const stepped: AnyActorRef[] = [];
  // Inspection names a child's parent as the source of its start event.
  const parents = new Map<AnyActorRef, AnyActorRef>();
  return {
    actors,
    stepped,
    parents,
    inspect(event) {
      if (event.type === '@xstate.event' && event.event.type === 'xstate.init' && event.sourceRef)
        parents.set(event.actorRef as AnyActorRef, event.sourceRef as AnyActorRef);
      if (event.type !== '@xstate.actor') return;
      const ref = event.actorRef as AnyActorRef;
      (ref instanceof Actor ? actors : stepped).push(ref);
    },
  };
}

/** The ids of the actors inside the subtree rooted at the agent's `turn` child (the turn included). */
function turnSubtree(recorder: ReturnType<typeof recordActors>): string[] {
  const { actors, parents } = recorder;
  const turns = new Set(actors.filter((actor) => actor.id === 'turn'));
  const inTurn = (actor: AnyActorRef): boolean => {
    for (let at: AnyActorRef | undefined = actor; at !== undefined; at = parents.get(at)) {
      if (turns.has(at)) return true;
    }
    return false;
  };
  return actors.filter(inTurn).map((actor) => actor.id);
}

/** A fresh agent's text turn with no listeners, then its disposal, with every actor recorded. */
async function runTextTurn() {
  const recorder = recordActors();
  const { agent, expectInvariants } = createTestAgent({
    script: [{ text: 'hi' }],
    options: { inspect: recorder.inspect },
  });
  agent.followup('hello');
  await agent.whenIdle();
  await agent.dispose();
  expectInvariants();
  return { recorder, agent };
}

describe('F01 turn: empty seams create no actor', () => {
  it('F01 a text turn with no listeners is one actor: its model request and its flush are none', async () => {
    const { recorder, agent } = await runTextTurn();
    // Before F01 the five empty seam states (prompt-submit, pre-step, post-step, continuation,
    // turn-stop) each built their invoke and stopped it unstarted: 8 actors; then 3 (the turn, its
    // `model` request and its `flushLog`), before those two became the turn's own phases.
    expect(turnSubtree(recorder)).toEqual(['turn']);
  });

  it('F01 a fresh agent, its text turn and its disposal are two actors: the agent and the turn', async () => {
    const { recorder, agent } = await runTextTurn();
    // Disposal's last flush was a `settle` promise actor (3 actors); it is the agent's own phase now.
    expect(recorder.actors.map((actor) => actor.id)).toEqual([agent.actor.id, 'turn']);
  });

  it('F01 a seam with a listener still invokes its actor, once per step', async () => {
    const recorder = recordActors();
    const { agent, seams, expectInvariants } = createTestAgent({
      script: [{ text: 'hi' }],
      options: { inspect: recorder.inspect },
    });
    const steps: number[] = [];
    seams.on('agent/pre-step', ({ step }) => {
      steps.push(step);
    });
    agent.followup('hello');
    await agent.whenIdle();
    await agent.dispose();
    expectInvariants();
    expect(steps).toEqual([1]);
    expect(turnSubtree(recorder)).toEqual(['turn', 'preStep']);
  });
});

describe('F01 agent: an empty agent/session-start creates no actor and no timer', () => {
  it('F01 a new agent without a session-start listener is one actor and schedules nothing', async () => {
    const recorder = recordActors();
    const setTimer = vi.spyOn(globalThis, 'setTimeout');
    try {
      const { agent, expectInvariants } = createTestAgent({
        script: [],
        options: { inspect: recorder.inspect },
      });
      // Before: the sessionStart actor was built and stopped unstarted, its timeout set and cleared.
      expect(recorder.actors.map((actor) => actor.id)).toEqual([agent.actor.id]);
      expect(setTimer).not.toHaveBeenCalled();
      await agent.dispose();
      expectInvariants();
    } finally {
      setTimer.mockRestore();
    }
  });

  it('F01 with a session-start listener it still invokes the seam once', async () => {
    const recorder = recordActors();
    const { agent, seams, expectInvariants } = createTestAgent({
      script: [],
      options: { inspect: recorder.inspect },
    });
    expect(recorder.actors.map((actor) => actor.id)).toEqual([agent.actor.id]);
    const started: string[] = [];
    seams.on('agent/session-start', ({ source }) => {
      started.push(source);
    });
    const second = createTestAgent({ script: [], seams, options: { inspect: recorder.inspect } });
    await second.agent.whenIdle();
    expect(started).toEqual(['startup']);
    expect(recorder.actors.map((actor) => actor.id)).toEqual([
      agent.actor.id,
      second.agent.actor.id,
      'sessionStart',
    ]);
    await Promise.all([agent.dispose(), second.agent.dispose()]);
    expectInvariants();
    second.expectInvariants();
  });
});

const echo = defineTool({
  name: 'echo',
  description: 'Echo the text',
  parameters: z.object({ text: z.string() }),
  concurrency: 'parallel',
  execute: ({ text }) => text,
  finalizeContent: () => undefined,
});

/** A pass-through listener on every tool seam (and a guard): every phase of a call runs. */
function listenOnEveryToolSeam(seams: Seams): void {
  seams.on('tools/prepare', () => ({ kind: 'keep' }));
  seams.on('tools/pre-execute', (_exec, next) => next());
  seams.guard(() => undefined);
  seams.on('tools/execute', (_exec, next) => next());
  seams.on('tools/post-execute', (_ctx, next) => next());
  seams.on('tools/result', () => {});
}

async function turnWithCalls(count: number, withListeners: boolean) {
  const recorder = recordActors();
  const calls = Array.from({ length: count }, (_, index) => ({
    id: `c${index}`,
    name: 'echo',
    arguments: { text: `t${index}` },
  }));
  const { agent, expectInvariants } = createTestAgent({
    tools: [echo],
    script: [{ toolCalls: calls }, { text: 'done' }],
    plugins: withListeners ? [{ name: 'every-seam', apply: listenOnEveryToolSeam }] : [],
    options: { inspect: recorder.inspect },
  });
  agent.followup('go');
  await agent.whenIdle();
  await agent.dispose();
  expectInvariants();
  const results = agent.log.events.filter((event) => event.type === 'tool/result');
  return { results, ids: turnSubtree(recorder), stepped: recorder.stepped, parents: recorder.parents };
}

describe('F01 tool machines: no phase of a call is an actor', () => {
  it('F01 a toolCall actor is one actor, with every tool seam empty or every one listened to', async () => {
    for (const withListeners of [false, true]) {
      const recorder = recordActors();
      const seams = createSeams();
      if (withListeners) listenOnEveryToolSeam(seams);
      const tools = createToolRegistryCore();
      tools.register(echo);
      const actor = createActor(createToolCallLogic({ tools, seams, cancelGraceMs: 5_000 }), {
        input: { call: { callId: 'c1', name: 'echo', arguments: '{"text":"hi"}' } },
        inspect: recorder.inspect,
      });
      const { result } = await toPromise(actor.start());
      expect(result).toMatchObject({ isError: false, value: 'hi' });
      // Before: the call, its abort watch, detach and dispatch (4; 6 with listeners).
      expect(recorder.actors).toEqual([actor]);
    }
  });

  it('F01 tools.execute runs no actor, with decision listeners or without (the engine steps the chart)', async () => {
    const actorsOf = async (listen: (seams: Seams) => void) => {
      const seams = createSeams();
      listen(seams);
      const tools = createToolRegistry();
      tools.register(echo);
      const started = vi.spyOn(Actor.prototype, 'start');
      try {
        const result = await tools.execute({ name: 'echo', arguments: '{"text":"hi"}' }, { seams });
        expect(result).toMatchObject({ isError: false, value: 'hi' });
        return started.mock.calls.length;
      } finally {
        started.mockRestore();
      }
    };
    // Observers only (`tools/result`, `seam/decided`) keep the call on the direct path.
    const observersOnly = (seams: Seams): void => {
      seams.on('tools/result', () => {});
      seams.on('seam/decided', () => {});
    };
    expect(await actorsOf(() => {})).toBe(0);
    expect(await actorsOf(observersOnly)).toBe(0);
    // Before: one root actor per call whatever the listeners; then one only with decision listeners.
    expect(await actorsOf(listenOnEveryToolSeam)).toBe(0);
    expect(await actorsOf((seams) => void seams.on('tools/execute', (exec, next) => next(exec)))).toBe(0);
  });

  it('F01 a standalone call with no listener goes from its read straight to its body, and on to finalize', async () => {
    const routeOf = async (seams: Seams) => {
      const route: string[] = [];
      const tools = createToolRegistryCore();
      tools.register(echo);
      const actor = createActor(createToolCallLogic({ tools, seams, cancelGraceMs: 5_000 }), {
        input: { call: { callId: 'c1', name: 'echo', arguments: '{"text":"hi"}' } },
        inspect: (event) => {
          if (event.type === '@xstate.microstep' || event.type === '@xstate.snapshot')
            route.push(JSON.stringify((event.snapshot as unknown as { value: unknown }).value));
        },
      });
      const { result } = await toPromise(actor.start());
      expect(result).toMatchObject({ isError: false, value: 'hi' });
      return route.filter((value, index) => value !== route[index - 1]);
    };
    expect(await routeOf(createSeams())).toEqual([
      '{"preparing":"detaching"}',
      '{"dispatching":"running"}',
      '{"finalizing":"checking"}',
      // echo has a finalizer (finalizeContent).
      '{"finalizing":"running"}',
      '"notifying"',
      '"done"',
    ]);
    // A listener before the body and one after: the call is sealed and decided, then reviewed. No state
    // only routes before pre-execute, an allowed standalone call with no guard goes straight to its
    // body, and its body settles straight into its review (it commits itself); before, preparing.checking,
    // preExecute.checking, guards.checking, dispatching.reporting, settled.reporting and
    // postExecute.checking were six more hops.
    const listened = createSeams();
    listened.on('tools/pre-execute', (_exec, next) => next());
    listened.on('tools/post-execute', (_ctx, next) => next());
    expect(await routeOf(listened)).toEqual([
      '{"preparing":"detaching"}',
      '"sealing"',
      '{"preExecute":"deciding"}',
      '{"dispatching":"running"}',
      '{"postExecute":"reviewing"}',
      '{"finalizing":"checking"}',
      '{"finalizing":"running"}',
      '"notifying"',
      '"done"',
    ]);
  });

  it('F01 a one-call turn with no tool listeners: the call is stepped inside the batch, no call actor', async () => {
    const { results, ids } = await turnWithCalls(1, false);
    expect(results.map((event) => event.data)).toMatchObject([{ callId: 'c0', isError: false }]);
    // Before: 20 actors (classify, abortWatch, detach and dispatch for the call among them), then 7,
    // then 6 (a `model` actor for each of the two steps and a `flushLog` among them).
    expect(ids).toEqual(['turn', 'toolBatch', 'scopeWatch']);
  });

  it('F01 a one-call turn with a listener on every tool seam: the call is stepped inside the batch, no actor', async () => {
    const { results, ids, stepped, parents } = await turnWithCalls(1, true);
    expect(results.map((event) => event.data)).toMatchObject([{ callId: 'c0', isError: false }]);
    // Before: the call was a `call-0` actor the batch spawned (and, before that, one more per phase).
    expect(ids).toEqual(['turn', 'toolBatch', 'scopeWatch']);
    // Inspection still shows the call's machine, under the batch.
    expect(stepped.map((ref) => ref.id)).toEqual(['call-0']);
    expect(parents.get(stepped[0]!)?.id).toBe('toolBatch');
  });

  it('F01 a 10-call parallel batch: no actor per call, with listeners or without', async () => {
    const { results, ids, stepped } = await turnWithCalls(10, false);
    expect(results).toHaveLength(10);
    // Before: 65 actors, then 16, then 6.
    expect(ids).toEqual(['turn', 'toolBatch', 'scopeWatch']);
    // Every call is its chart, stepped inside the batch (E02): inspection shows it, no actor runs it.
    const calls = Array.from({ length: 10 }, (_, index) => `call-${index}`);
    expect(stepped.map((ref) => ref.id)).toEqual(calls);
    const listened = await turnWithCalls(10, true);
    expect(listened.results).toHaveLength(10);
    // Before: 13 (one `call-N` actor per call).
    expect(listened.ids).toEqual(['turn', 'toolBatch', 'scopeWatch']);
    expect(listened.stepped.map((ref) => ref.id)).toEqual(calls);
  });
});
