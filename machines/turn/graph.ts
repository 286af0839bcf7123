import type { EventObject } from 'xstate';
import type { AcceptedAnswer } from './rules.js';
import type { TurnEvent, TurnStopOutput } from './types.js';

/** A synthetic `xstate.done.actor.<id>` event carrying `output`. */
export function doneEvent(id: string, output: unknown): EventObject {
  return { type: `xstate.done.actor.${id}`, output, actorId: id } as EventObject;
}

/** A synthetic `xstate.error.actor.<id>` event carrying a plain-object error. */
export function errorEvent(id: string, error: { message: string; code?: string }): EventObject {
  return { type: `xstate.error.actor.${id}`, error, actorId: id } as EventObject;
}

const text = (t: string) => ({ type: 'text' as const, text: t });
const call = { type: 'tool-call' as const, id: 'c1', name: 'echo', arguments: '{}' };
const answers: Record<string, AcceptedAnswer> = {
  stop: { content: [text('done')], finish: 'stop', calls: [] },
  tools: { content: [call], finish: 'tool-calls', calls: [call] },
  maxTokens: { content: [text('cut')], finish: 'max-tokens', calls: [] },
};
const stop: TurnStopOutput = { decision: { action: 'stop', reason: 'enough' }, decidedBy: 'stopper' };
const noStop: TurnStopOutput = { decision: undefined, decidedBy: 'default' };
const source = { kind: 'user' as const };

const external: TurnEvent[] = [
  { type: 'TURN_OPENED' },
  { type: 'STEER', item: { id: 's1', content: [text('steer')], source, contexts: [], wakeup: true } },
  { type: 'INJECT', injection: { content: [text('inject')], source: { kind: 'plugin', plugin: 'p' } } },
  { type: 'CANCEL', cause: { kind: 'user' }, keepInbox: false },
  { type: 'CANCEL', cause: { kind: 'disposed' }, keepInbox: false },
  { type: 'CALL_COMMITTED', callId: 'c1', contexts: [] },
  { type: 'INTERNAL_ERROR', error: { message: 'append refused' } },
];

/**
 * Every outcome of every invoke and phase of the turn machine as a synthetic event, plus its external
 * events and its delay, for `xstate/graph` traversal (`filterEvents: (s, e) => s.can(e)`).
 */
export const graphEvents: readonly EventObject[] = Object.freeze([
  doneEvent('promptSubmit', { kind: 'allow' }),
  doneEvent('promptSubmit', { kind: 'block', reason: 'blocked' }),
  errorEvent('promptSubmit', { message: 'listener failed', code: 'LISTENER_FAILED' }),
  doneEvent('preStep', undefined),
  errorEvent('preStep', { message: 'listener failed', code: 'LISTENER_FAILED' }),
  { type: 'model.done', output: answers.stop },
  { type: 'model.done', output: answers.tools },
  { type: 'model.done', output: answers.maxTokens },
  { type: 'model.error', error: { message: 'overloaded', code: 'RATE_LIMIT' } },
  doneEvent('toolBatch', { aborted: false }),
  doneEvent('toolBatch', { aborted: true }),
  // Every call left waits for a deferred approval: the step suspends (approvals.md).
  doneEvent('toolBatch', { aborted: false, suspended: { pending: ['a1'], held: [], notStarted: [] } }),
  // An append of the batch failed (`error` set): the turn repairs the log and closes with error.
  doneEvent('toolBatch', { aborted: false, error: 'Recording tool/result failed: disk full' }),
  errorEvent('toolBatch', { message: 'batch failed' }),
  doneEvent('postStep', undefined),
  errorEvent('postStep', { message: 'listener failed', code: 'LISTENER_FAILED' }),
  doneEvent('abortedPostStep', undefined),
  errorEvent('abortedPostStep', { message: 'listener failed' }),
  doneEvent('continuation', { action: 'continue' }),
  doneEvent('continuation', { action: 'continue', reason: { content: [text('again')], source } }),
  doneEvent('continuation', { action: 'stop' }),
  errorEvent('continuation', { message: 'listener failed', code: 'LISTENER_FAILED' }),
  doneEvent('turnStop', stop),
  doneEvent('turnStop', noStop),
  errorEvent('turnStop', { message: 'listener failed', code: 'LISTENER_FAILED' }),
  doneEvent('requestError', { action: 'retry' }),
  doneEvent('requestError', { action: 'fail' }),
  errorEvent('requestError', { message: 'listener failed', code: 'LISTENER_FAILED' }),
  { type: 'flush.done' },
  { type: 'flush.error', error: { message: 'disk full' } },
  { type: 'xstate.after.cancelGrace.turn.open.step.abortedPostStep.running' },
  ...external,
]);
