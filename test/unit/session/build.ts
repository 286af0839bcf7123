// Hand-built logs for the session tests: each helper returns a draft, `logOf` numbers them.
import type { CoreEventDraft, LogEvent, TurnEndReason } from '../../../kernel/index.js';
import { type CheckInvariantsOptions, checkInvariants } from '../../../session/index.js';

type Draft = CoreEventDraft | { readonly type: string; readonly data: unknown };

const user = { kind: 'user' } as const;
const plugin = { kind: 'plugin', plugin: 'test' } as const;
const text = (value: string) => [{ type: 'text' as const, text: value }];

export const ts = (turn: number, kind: 'message' | 'injection' = 'message'): Draft => ({
  type: 'turn/start',
  data: { turn, trigger: { kind, source: kind === 'message' ? user : plugin } },
});
export const te = (turn: number, reason: TurnEndReason = { kind: 'completed' }): Draft => ({
  type: 'turn/end',
  data: { turn, reason },
});
export const um = (value = 'hi'): Draft => ({
  type: 'user/message',
  data: { content: text(value), source: user },
});
export const pb = (reason: string, value = 'hi'): Draft => ({
  type: 'prompt/blocked',
  data: { content: text(value), source: user, reason },
});
export const cm = (value = 'ctx'): Draft => ({
  type: 'context/message',
  data: { content: text(value), source: plugin },
});
export const sm = (turn: number, value = 'steer'): Draft => ({
  type: 'steering/message',
  data: { turn, content: text(value), source: user },
});
export const ss = (turn: number, step: number): Draft => ({ type: 'step/start', data: { turn, step } });
export const se = (turn: number, step: number): Draft => ({ type: 'step/end', data: { turn, step } });
export const am = (turn: number, step: number, calls: readonly string[] = [], value = 'answer'): Draft => ({
  type: 'assistant/message',
  data: {
    turn,
    step,
    content: [
      ...text(value),
      ...calls.map((id) => ({ type: 'tool-call' as const, id, name: 'echo', arguments: `{"id":"${id}"}` })),
    ],
    finish: calls.length > 0 ? 'tool-calls' : 'stop',
  },
});
export const tc = (turn: number, step: number, callId: string): Draft => ({
  type: 'tool/call',
  data: { turn, step, callId, name: 'echo', arguments: `{"id":"${callId}"}` },
});
export const tr = (turn: number, step: number, callId: string): Draft => ({
  type: 'tool/result',
  data: { turn, step, callId, content: text(`result ${callId}`), isError: false },
});
export const pluginEvent = (type = 'test/note'): Draft => ({ type, data: { note: 'x' } });

/** One answered step without tool calls: `step/start`, the answer (default `am`), `step/end`. */
export const step = (turn: number, n: number, answer: Draft = am(turn, n)): Draft[] => [
  ss(turn, n),
  answer,
  se(turn, n),
];

/** `[invariant, seq, code]` of each violation: what the invariant tests assert on. */
export const found = (events: readonly LogEvent[], options?: CheckInvariantsOptions) =>
  checkInvariants(events, options).map((v) => [v.invariant, v.seq, v.code]);

/** Numbers drafts 0, 1, 2, … into log events. */
export function logOf(...drafts: readonly Draft[]): LogEvent[] {
  return drafts.map((draft, seq) => ({
    seq,
    type: draft.type,
    data: draft.data,
    time: '2025-01-01T00:00:00.000Z',
  }));
}

/** A message turn with one tool step and a final answer: satisfies every invariant. */
export const toolTurn = (turn: number): Draft[] => [
  ts(turn),
  um('go'),
  ss(turn, 1),
  am(turn, 1, ['c1', 'c2']),
  tc(turn, 1, 'c1'),
  tc(turn, 1, 'c2'),
  tr(turn, 1, 'c1'),
  tr(turn, 1, 'c2'),
  cm('after batch'),
  se(turn, 1),
  ss(turn, 2),
  am(turn, 2),
  se(turn, 2),
  te(turn),
];
