import { describe, expect, it } from 'vitest';
import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { graphEvents as toolBatchEvents, toolBatchMachine } from '../../../machines/toolBatch.js';
import { graphEvents as toolCallEvents, toolCallMachine } from '../../../machines/toolCall.js';
import { isBatchEventReachable, serializeBatchState } from '../../paths/support/batchPaths.js';

// Atomic states without eventless transitions: the ones a traversal can end in.
function restingStates(machine: AnyStateMachine): string[] {
  const ids: string[] = [];
  const visit = (node: AnyStateNode): void => {
    const children = Object.values(node.states) as AnyStateNode[];
    if (children.length === 0 && (node.always ?? []).length === 0) ids.push(node.id);
    for (const child of children) visit(child);
  };
  visit(machine.root);
  return ids.sort();
}

function reachedStates(
  machine: AnyStateMachine,
  input: unknown,
  events: readonly unknown[],
  serializeState?: (snapshot: AnyMachineSnapshot) => string,
  reachable: (snapshot: AnyMachineSnapshot, event: never) => boolean = () => true,
): string[] {
  const paths = getShortestPaths(machine, {
    input,
    events: events as never,
    filterEvents: (snapshot, event) => snapshot.can(event) && reachable(snapshot as never, event as never),
    ...(serializeState ? { serializeState: serializeState as never } : {}),
  });
  const reached = new Set<string>();
  for (const path of paths) {
    for (const step of path.steps) {
      for (const node of step.state._nodes)
        if (node.type === 'atomic' || node.type === 'final') reached.add(node.id);
    }
  }
  return [...reached].sort();
}

describe('graph traversal with the exported graphEvents', () => {
  it('reaches every resting state of the toolCall machine, batched and standalone', () => {
    const events = toolCallEvents;
    // A call is held only behind a parked one (approvals.md): the batch says so in its input.
    const batched = [
      ...new Set([
        ...reachedStates(toolCallMachine, { scopeKey: 's', callKey: 'k', batched: true }, events),
        ...reachedStates(
          toolCallMachine,
          { scopeKey: 's', callKey: 'k', batched: true, holdDispatch: true },
          events,
        ),
      ]),
    ].sort();
    expect(batched).toEqual(restingStates(toolCallMachine));
    const standalone = reachedStates(
      toolCallMachine,
      { scopeKey: 's', callKey: 'k', batched: false },
      events,
    );
    expect(standalone).toEqual(
      restingStates(toolCallMachine).filter(
        // A standalone call has no batch to record its `tool/call`: it never waits for the record.
        (id) =>
          !id.endsWith('awaitingCommit') &&
          id !== 'toolCall.held.waiting' &&
          id !== 'toolCall.dispatching.recording',
      ),
    );
  });

  it('reaches every resting state of the toolBatch machine', () => {
    const calls = ['c1', 'c2', 'c3'].map((id) => ({
      type: 'tool-call' as const,
      id,
      name: 't',
      arguments: '{}',
    }));
    const reached = reachedStates(
      toolBatchMachine,
      { scopeKey: 's', turn: 1, step: 1, calls, maxParallel: 2 },
      toolBatchEvents,
      // The path suite's dedup key (lossless for what the batch can still do): the full snapshot explodes.
      serializeBatchState,
      // and its reachability (a call parks or is held only in the lane), so parked calls stay few.
      isBatchEventReachable as never,
    );
    expect(reached).toEqual(restingStates(toolBatchMachine));
  });
});
