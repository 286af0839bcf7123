import { describe, expect, it } from 'vitest';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { createTestAgent } from '../../../testing/index.js';

/** Every actor an agent's system creates, in creation order, as `@xstate.actor` reports them. */
function recordActors(): { readonly actors: AnyActorRef[]; inspect(event: InspectionEvent): void } {
  const actors: AnyActorRef[] = [];
  return {
    actors,
    inspect(event) {
      if (event.type === '@xstate.actor') actors.push(event.actorRef as AnyActorRef);
    },
  };
}

/** The ids of the actors inside the subtree rooted at the agent's `turn` child (the turn included). */
function turnSubtree(actors: readonly AnyActorRef[]): string[] {
  const turns = new Set(actors.filter((actor) => actor.id === 'turn'));
  const inTurn = (actor: AnyActorRef): boolean => {
    for (let at: AnyActorRef | undefined = actor; at !== undefined; at = at._parent) {
      if (turns.has(at)) return true;
    }
    return false;
  };
  return actors.filter(inTurn).map((actor) => actor.id);
}

describe('F01 turn: empty seams create no actor', () => {
  it('F01 a text turn with no listeners creates 3 actors: the turn, its model request and its flush', async () => {
    const recorder = recordActors();
    const { agent, expectInvariants } = createTestAgent({
      script: [{ text: 'hi' }],
      options: { inspect: recorder.inspect },
    });
    agent.followup('hello');
    await agent.whenIdle();
    await agent.dispose();
    expectInvariants();
    // Before F01 the five empty seam states (prompt-submit, pre-step, post-step, continuation,
    // turn-stop) each built their invoke and stopped it unstarted: 8 actors.
    expect(turnSubtree(recorder.actors)).toEqual(['turn', 'model', 'flushLog']);
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
    expect(turnSubtree(recorder.actors)).toEqual(['turn', 'preStep', 'model', 'flushLog']);
  });
});
