import { describe, expect, it } from 'vitest';
import { type AnyActorRef, createActor, type InspectionEvent, toPromise } from 'xstate';
import { z } from 'zod';
import { createToolCallLogic } from '../../../machines/toolCall/logic.js';
import { createSeams } from '../../../seams/index.js';
import type { Seams } from '../../../seams/types.js';
import { createTestAgent } from '../../../testing/index.js';
import { createToolRegistryCore, defineTool } from '../../../tools/index.js';

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

/** Every actor created in the observed system, as `id` (root actors as `root`), plus the event count. */
function recordActors() {
  const actors: AnyActorRef[] = [];
  let events = 0;
  const inspect = (event: InspectionEvent): void => {
    if (event.type === '@xstate.actor') actors.push(event.actorRef as AnyActorRef);
    if (event.type === '@xstate.event') events++;
  };
  const ids = (refs: readonly AnyActorRef[]) => refs.map((ref) => (ref._parent ? ref.id : 'root'));
  // The batch and everything below it: what the tool machines create in a turn.
  const underBatch = () =>
    actors.filter((ref) => {
      for (let at: AnyActorRef | undefined = ref; at; at = at._parent) if (at.id === 'toolBatch') return true;
      return false;
    });
  return { inspect, actors, ids, underBatch, events: () => events };
}

async function standaloneCall(withListeners: boolean) {
  const recording = recordActors();
  const seams = createSeams();
  if (withListeners) listenOnEveryToolSeam(seams);
  const tools = createToolRegistryCore();
  tools.register(echo);
  const actor = createActor(createToolCallLogic({ tools, seams, cancelGraceMs: 5_000 }), {
    input: { call: { callId: 'c1', name: 'echo', arguments: '{"text":"hi"}' } },
    inspect: recording.inspect,
  });
  const { result } = await toPromise(actor.start());
  return { result, ids: recording.ids(recording.actors) };
}

async function turnWithCalls(count: number, withListeners: boolean) {
  const recording = recordActors();
  const calls = Array.from({ length: count }, (_, index) => ({
    id: `c${index}`,
    name: 'echo',
    arguments: { text: `t${index}` },
  }));
  const test = createTestAgent({
    tools: [echo],
    script: [{ toolCalls: calls }, { text: 'done' }],
    plugins: withListeners ? [{ name: 'every-seam', apply: listenOnEveryToolSeam }] : [],
    options: { inspect: recording.inspect },
  });
  test.agent.followup('go');
  await test.agent.whenIdle();
  await test.agent.dispose();
  test.expectInvariants();
  const results = test.agent.log.events.filter((event) => event.type === 'tool/result');
  return { results, ids: recording.ids(recording.underBatch()) };
}

describe('F01 the tool machines create an actor per call and per batch, none per phase', () => {
  it('F01 a standalone call is one actor, with every tool seam empty or every one listened to', async () => {
    for (const withListeners of [false, true]) {
      const { result, ids } = await standaloneCall(withListeners);
      expect(result).toMatchObject({ isError: false, value: 'hi' });
      expect(ids).toEqual(['root']);
    }
  });

  it('F01 a one-call turn: the batch, its scope watch and the call; listeners add no actor', async () => {
    for (const withListeners of [false, true]) {
      const { results, ids } = await turnWithCalls(1, withListeners);
      expect(results.map((event) => event.data)).toMatchObject([{ callId: 'c0', isError: false }]);
      expect(ids).toEqual(['toolBatch', 'scopeWatch', 'call-0']);
    }
  });

  it('F01 a 10-call parallel batch: one actor per call and two for the batch', async () => {
    const { results, ids } = await turnWithCalls(10, false);
    expect(results).toHaveLength(10);
    expect(ids).toEqual(['toolBatch', 'scopeWatch', ...Array.from({ length: 10 }, (_, i) => `call-${i}`)]);
  });
});
