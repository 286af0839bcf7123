import type { EventObject } from 'xstate';
import type { InboxItem } from '../runtime/index.js';
import type { TurnOutput } from '../turn/index.js';
import { doneEvent, errorEvent } from '../turn/index.js';
import type { AgentEvent } from './types.js';

const text = (t: string) => ({ type: 'text' as const, text: t });
const item = (id: string, wakeup: boolean): InboxItem => ({
  id,
  content: [text(id)],
  source: { kind: 'user' },
  contexts: [],
  wakeup,
});
const output = (overrides: Partial<TurnOutput>): TurnOutput => ({
  reason: { kind: 'completed' },
  leftoverSteering: [],
  droppedSteering: [],
  terminalStopped: false,
  heldInjections: [],
  ...overrides,
});

const external: AgentEvent[] = [
  { type: 'SEND', item: item('m1', true) },
  { type: 'QUEUE', item: item('q1', false) },
  { type: 'STEER', item: item('s1', true) },
  { type: 'INJECT', injection: { content: [text('ctx')], source: { kind: 'plugin', plugin: 'p' } } },
  { type: 'CANCEL', cause: { kind: 'user' }, keepInbox: false },
  { type: 'CANCEL', cause: { kind: 'user' }, keepInbox: true },
  { type: 'DISPOSE', keepInbox: false },
  { type: 'STORE_FAILED', failure: { code: 'WRITE_FAILED', message: 'disk full' } },
  { type: 'TURN_CLOSED' },
  // The turn suspended on deferred approvals; every request of it answered (approvals.md).
  { type: 'TURN_SUSPENDED' },
  { type: 'RESUME' },
];

/**
 * Every outcome of every invoke of the agent machine as a synthetic event, plus its external events
 * and its delay, for `xstate/graph` traversal (`filterEvents: (s, e) => s.can(e)`).
 */
export const graphEvents: readonly EventObject[] = Object.freeze([
  doneEvent('sessionStart', undefined),
  errorEvent('sessionStart', { message: 'listener failed' }),
  { type: 'xstate.after.sessionStartTimeout.agent.starting.running' },
  doneEvent('turn', output({})),
  doneEvent('turn', output({ reason: { kind: 'aborted' }, leftoverSteering: [item('s2', true)] })),
  doneEvent('turn', output({ terminalStopped: true, leftoverSteering: [item('s3', true)] })),
  errorEvent('turn', { message: 'turn actor failed' }),
  { type: 'settle.done' },
  { type: 'settle.error', error: { message: 'flush failed' } },
  ...external,
]);
