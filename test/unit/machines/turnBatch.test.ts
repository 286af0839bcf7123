import { describe, expect, it } from 'vitest';
import { fromPromise } from 'xstate';
import type { ToolBatchInput } from '../../../machines/turn/types.js';
import { scriptedModel } from '../../../model/index.js';
import { createSeams } from '../../../seams/index.js';
import { checkInvariants, memoryStore } from '../../../session/index.js';
import { runTurn } from '../agent/turnHarness.js';

const twoCalls = [
  {
    toolCalls: [
      { id: 'c1', name: 'echo', arguments: {} },
      { id: 'c2', name: 'echo', arguments: {} },
    ],
  },
  { text: 'never requested' },
];

/** A memory store that refuses the first write of `type` (a disk error mid-batch). */
function refusingOnce(type: string) {
  let refused = false;
  return {
    ...memoryStore(),
    write(event: { type: string }) {
      if (event.type === type && !refused) {
        refused = true;
        throw new Error('disk full');
      }
    },
  };
}

const results = (events: readonly { type: string; data: unknown }[]) =>
  events
    .filter((e) => e.type === 'tool/result')
    .map((e) => {
      const data = e.data as { callId: string; error?: { code: string } };
      return [data.callId, data.error?.code ?? 'ok'];
    });

describe('turn machine: a failed batch closes the turn with error and repairs the log', () => {
  it('a refused tool/result ends the batch with `error`: synthetic results, step/end, turn/end{error INTERNAL_ERROR}', async () => {
    const store = refusingOnce('tool/result');
    const run = runTurn({
      seams: createSeams(),
      model: scriptedModel(twoCalls),
      text: 'go',
      batch: 'real',
      store,
    });
    const output = (await run.done) as { reason: unknown };
    expect(output.reason).toMatchObject({ kind: 'error', step: 1, code: 'INTERNAL_ERROR' });
    expect(results(run.events)).toEqual([
      ['c1', 'TOOL_OUTCOME_UNKNOWN'],
      ['c2', 'TOOL_OUTCOME_UNKNOWN'],
    ]);
    expect(run.types().slice(-2)).toEqual(['step/end', 'turn/end']);
    expect(run.types().filter((t) => t === 'step/start')).toHaveLength(1);
    expect(checkInvariants(run.events)).toEqual([]);
  });

  it('a refused tool/call is repaired the same way (a synthetic pair for every call never recorded)', async () => {
    const store = refusingOnce('tool/call');
    const run = runTurn({
      seams: createSeams(),
      model: scriptedModel(twoCalls),
      text: 'go',
      batch: 'real',
      store,
    });
    const output = (await run.done) as { reason: unknown };
    expect(output.reason).toMatchObject({ kind: 'error', code: 'INTERNAL_ERROR' });
    expect(checkInvariants(run.events)).toEqual([]);
  });

  it('a batch child that dies (onError) is repaired and closes the turn with error INTERNAL_ERROR', async () => {
    const run = runTurn({
      seams: createSeams(),
      model: scriptedModel(twoCalls),
      text: 'go',
      batch: (services) =>
        fromPromise<{ aborted: boolean }, ToolBatchInput>(async ({ input }) => {
          const [call] = input.calls;
          const { turn, step } = input;
          services.log.appendCore('tool/call', {
            turn,
            step,
            callId: call!.id,
            name: call!.name,
            arguments: call!.arguments,
          });
          throw new Error('the batch crashed');
        }),
    });
    const output = (await run.done) as { reason: unknown };
    expect(output.reason).toMatchObject({
      kind: 'error',
      step: 1,
      code: 'INTERNAL_ERROR',
      message: 'the batch crashed',
    });
    expect(results(run.events)).toEqual([
      ['c1', 'TOOL_OUTCOME_UNKNOWN'],
      ['c2', 'TOOL_OUTCOME_UNKNOWN'],
    ]);
    expect(run.errors).toHaveLength(1);
    expect(checkInvariants(run.events)).toEqual([]);
  });
});
