import type { AnyEventObject } from 'xstate';
import type { HookContext } from '../../kernel/index.js';
import { createSuccessResult, withContexts } from '../../tools/index.js';
import type { ToolCallOutput } from './types.js';

/** How many calls the graph events cover (traverse with up to this many calls, ids `c1`, `c2`, …). */
export const graphCallCount = 3;

const indexes = Array.from({ length: graphCallCount }, (_, index) => index);
const success = createSuccessResult('ok', [{ type: 'text', text: 'ok' }]);
// A call's success carries its context.
const callOutput = (index: number): ToolCallOutput => ({
  callId: `c${index + 1}`,
  result: withContexts(success, [graphContextOf(`c${index + 1}`)]),
});

/** The context a settled call of the graph returns with its success (the path runs expect it in the log). */
export function graphContextOf(callId: string): HookContext {
  return {
    content: [{ type: 'text', text: `context of ${callId}` }],
    source: { kind: 'plugin', plugin: 'paths' },
  };
}

/**
 * Synthetic events for `xstate/graph` traversal of `toolBatchMachine` with calls `c1…c3`: the stepped
 * calls' reports and ends (`call.done`, `call.error`), both classifications, `ABORT` and `INTERNAL_ERROR`.
 */
export const graphEvents: readonly AnyEventObject[] = [
  ...indexes.flatMap((index) => [
    { type: 'classify.done', index, output: { mode: 'parallel' } },
    { type: 'classify.done', index, output: { mode: 'exclusive' } },
    { type: 'classify.error', index, error: { message: 'classification failed' } },
    { type: 'PREPARED_INPUT', callId: `c${index + 1}`, arguments: '{}' },
    { type: 'call.report', report: 'PREPARED', callId: `c${index + 1}` },
    { type: 'call.report', report: 'SETTLED', callId: `c${index + 1}` },
    // A call parked on a deferred approval, or held behind one (approvals.md): both free the lane.
    {
      type: 'call.report',
      report: 'PARKED',
      callId: `c${index + 1}`,
      request: { requestId: null, answered: false, reason: null, askedBy: 'p', expiresAt: null },
    },
    { type: 'call.report', report: 'HELD', callId: `c${index + 1}` },
    { type: 'call.done', index, output: callOutput(index) },
    { type: 'call.error', index, error: { message: 'a step of the call threw' } },
  ]),
  { type: 'ABORT' },
  { type: 'INTERNAL_ERROR', message: 'append failed' },
  { type: 'FINISH' },
];
