import type { AnyEventObject } from 'xstate';
import { createSuccessResult } from '../../tools/index.js';
import type { ToolCallOutput } from './types.js';

/** How many calls the graph events cover (traverse with up to this many calls, ids `c1`, `c2`, …). */
export const graphCallCount = 3;

const indexes = Array.from({ length: graphCallCount }, (_, index) => index);
const callOutput = (index: number): ToolCallOutput => ({
  callId: `c${index + 1}`,
  result: createSuccessResult('ok', [{ type: 'text', text: 'ok' }]),
});

/**
 * Synthetic events for `xstate/graph` traversal of `toolBatchMachine` with calls `c1…c3`: the calls'
 * reports and done/error events, both classifications, `ABORT` and `INTERNAL_ERROR`.
 */
export const graphEvents: readonly AnyEventObject[] = [
  ...indexes.flatMap((index) => [
    { type: 'classify.done', index, output: { mode: 'parallel' } },
    { type: 'classify.done', index, output: { mode: 'exclusive' } },
    { type: 'classify.error', index, error: { message: 'classification failed' } },
    { type: 'PREPARED_INPUT', callId: `c${index + 1}`, arguments: '{}' },
    { type: 'PREPARED', callId: `c${index + 1}` },
    { type: 'SETTLED', callId: `c${index + 1}` },
    { type: `xstate.done.actor.call-${index}`, output: callOutput(index), actorId: `call-${index}` },
    {
      type: `xstate.error.actor.call-${index}`,
      error: { message: 'call actor died' },
      actorId: `call-${index}`,
    },
  ]),
  { type: 'ABORT' },
  { type: 'INTERNAL_ERROR', message: 'append failed' },
  { type: 'FINISH' },
];
