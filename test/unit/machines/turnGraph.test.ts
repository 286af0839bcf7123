import { describe, expect, it } from 'vitest';
import type { AnyMachineSnapshot, EventObject } from 'xstate';
import { turnSeams } from '../../../machines/turn/types.js';
import { graphEvents, turnMachine } from '../../../machines/turn.js';
import { shortestSeamPaths } from '../../../testing/index.js';
import { serializeTurnState, turnInput } from '../../paths/support/turnPaths.js';

// Only the turn itself sends these: TURN_OPENED/INTERNAL_ERROR confirm or refuse its own turn/start.
const selfSent = new Set(['TURN_OPENED', 'INTERNAL_ERROR']);

/** Every (state value, event type) edge the graph takes with `s.can(e)` alone, no extra filter. */
function edgesWithoutExtraFilter(): { from: unknown; type: string }[] {
  const runs = shortestSeamPaths(turnMachine, {
    seams: turnSeams,
    events: graphEvents as EventObject[],
    inputFor: (config) => turnInput(config.present),
    serializeState: serializeTurnState,
  });
  const edges: { from: unknown; type: string }[] = [];
  for (const { paths } of runs) {
    for (const path of paths) {
      path.steps.forEach((step, index) => {
        if (index === 0) return;
        const from = (path.steps[index - 1]!.state as AnyMachineSnapshot).value;
        edges.push({ from, type: step.event.type });
      });
    }
  }
  return edges;
}

describe('turn graphEvents and structure agree on what a real turn can receive', () => {
  const edges = edgesWithoutExtraFilter();

  it('the agent cannot reach a turn in `opening`: it accepts only its own TURN_OPENED / INTERNAL_ERROR there', () => {
    const fromOpening = new Set(edges.filter((e) => e.from === 'opening').map((e) => e.type));
    expect([...fromOpening].sort()).toEqual(['INTERNAL_ERROR', 'TURN_OPENED']);
  });

  it('self-sent events are taken only from `opening` (no path with an impossible INTERNAL_ERROR)', () => {
    const elsewhere = edges.filter((e) => selfSent.has(e.type) && e.from !== 'opening');
    expect(elsewhere).toEqual([]);
  });

  it('a batch that reports `error` leads straight to closing (a path ends through it)', () => {
    const runs = shortestSeamPaths(turnMachine, {
      seams: [],
      events: graphEvents as EventObject[],
      input: turnInput(Object.fromEntries(turnSeams.map((seam) => [seam, false]))),
      serializeState: serializeTurnState,
    });
    const through = runs[0]!.paths.filter((path) =>
      path.steps.some(
        (step) =>
          step.event.type === 'xstate.done.actor.toolBatch' &&
          (step.event as { output?: { error?: string } }).output?.error !== undefined,
      ),
    );
    expect(through.length).toBeGreaterThan(0);
    for (const path of through) {
      const index = path.steps.findIndex(
        (step) => (step.event as { output?: { error?: string } }).output?.error,
      );
      expect((path.steps[index]!.state as AnyMachineSnapshot).value).toBe('flushing');
    }
  });
});
