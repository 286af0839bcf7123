import { describe, expect, it } from 'vitest';
import { type AnyStateMachine, type AnyStateNode, createMachine, fromPromise } from 'xstate';
import { agentMachine } from '../../../machines/agent.js';
import { toolBatchMachine } from '../../../machines/toolBatch.js';
import { toolCallMachine } from '../../../machines/toolCall.js';
import { turnMachine } from '../../../machines/turn.js';

/**
 * Incoming edges per state as the Stately import draws them: every target of every transition — each event,
 * each guarded branch, eventless `always`, `after`, and `onDone`/`onError` — is one edge (initial arrows are not).
 */
function incomingEdges(machine: AnyStateMachine): Map<string, string[]> {
  const incoming = new Map<string, string[]>();
  const visit = (node: AnyStateNode): void => {
    if (!incoming.has(node.id)) incoming.set(node.id, []);
    for (const transition of [...[...node.transitions.values()].flat(), ...(node.always ?? [])]) {
      for (const target of transition.target ?? []) {
        const edges = incoming.get(target.id) ?? [];
        edges.push(`${node.id} on ${transition.eventType === '' ? 'always' : transition.eventType}`);
        incoming.set(target.id, edges);
      }
    }
    for (const child of Object.values(node.states)) visit(child);
  };
  visit(machine.root);
  return incoming;
}

const overLimit = (machine: AnyStateMachine, limit: number): string[] =>
  [...incomingEdges(machine)]
    .filter(([, edges]) => edges.length > limit)
    .map(([id, edges]) => `${id} has ${edges.length} incoming edges: ${edges.join(', ')}`);

describe('E06 incoming edges in the Stately import', () => {
  it('counts each event, guarded branch, always, after and onDone/onError target once', () => {
    const machine = createMachine({
      id: 'm',
      initial: 'a',
      states: {
        a: {
          on: { X: 'b', Y: [{ guard: () => false, target: 'c' }, { target: 'b' }], Z: {} },
          always: { guard: () => false, target: 'c' },
        },
        b: {
          invoke: { src: fromPromise(async () => 1), onDone: 'c', onError: 'a' },
          after: { 100: 'c' },
        },
        c: { type: 'final' },
      },
    });
    expect(Object.fromEntries([...incomingEdges(machine)].map(([id, edges]) => [id, edges.length]))).toEqual({
      m: 0,
      'm.a': 1,
      'm.b': 2,
      'm.c': 4,
    });
  });

  // engine.md, contract 5.
  for (const machine of [agentMachine, turnMachine, toolBatchMachine, toolCallMachine]) {
    it(`E06 no state of the ${machine.id} chart has more than 8 incoming edges`, () => {
      expect(overLimit(machine, 8)).toEqual([]);
    });
  }

  it('E06 an abort before the body settles a call through one edge, at the root', () => {
    const aborts = [...incomingEdges(toolCallMachine)]
      .flatMap(([target, edges]) => edges.map((edge) => `${edge} → ${target}`))
      .filter((edge) => edge.includes(' on ABORT'));
    // Folding, the running body and the review answer an abort themselves.
    expect(aborts.sort()).toEqual([
      'toolCall on ABORT → toolCall.settled',
      'toolCall.dispatching.running on ABORT → toolCall.dispatching.draining',
      'toolCall.postExecute.reviewing on ABORT → toolCall.finalizing',
      'toolCall.preparing.folding on ABORT → toolCall.sealing',
    ]);
  });

  it('E06 the turn closes on a failure through one edge, at `open`', () => {
    const failureEdges = (incomingEdges(turnMachine).get('turn.closing') ?? []).filter((edge) =>
      edge.endsWith(' on always'),
    );
    // `open`'s guarded edge, the refused turn/suspended's repair, and `deciding`'s end of the loop.
    expect(failureEdges).toEqual([
      'turn.open on always',
      'turn.open.step.suspended.recording on always',
      'turn.open.step.deciding on always',
    ]);
  });
});
