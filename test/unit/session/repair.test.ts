import { describe, expect, it } from 'vitest';
import { checkInvariants, createSessionLog, memoryStore, repairEvents } from '../../../session/index.js';
import { am, cm, logOf, pb, se, ss, tc, te, toolTurn, tr, ts, um } from './build.js';

describe('repairEvents', () => {
  it('returns nothing for a log with no open turn', () => {
    expect(repairEvents(logOf(...toolTurn(1)))).toEqual({ events: [], repairs: [] });
    expect(repairEvents([])).toEqual({ events: [], repairs: [] });
  });

  it('closes an open turn without steps as interrupted', () => {
    const { events } = repairEvents(logOf(...toolTurn(1), ts(2), um()));
    expect(events).toEqual([{ type: 'turn/end', data: { turn: 2, reason: { kind: 'interrupted' } } }]);
  });

  it('closes an open turn whose prompt was blocked as rejected with the block reason (a crash before its turn/end)', () => {
    const log = logOf(ts(1), pb('no secrets'));
    const { events } = repairEvents(log);
    expect(events).toEqual([
      { type: 'turn/end', data: { turn: 1, reason: { kind: 'rejected', reason: 'no secrets' } } },
    ]);
    const repaired = createSessionLog({ store: memoryStore({ events: log }) });
    for (const draft of events) repaired.appendCore(draft.type as 'turn/end', draft.data as never);
    expect(checkInvariants(repaired.events)).toEqual([]);
  });

  it('gives pending calls results in model order: started ones a result, unstarted ones an adjacent pair', () => {
    const log = logOf(
      ts(1),
      um(),
      ss(1, 1),
      am(1, 1, ['c1', 'c2', 'c3']),
      tc(1, 1, 'c1'),
      tc(1, 1, 'c2'),
      tr(1, 1, 'c1'),
    );
    const { events } = repairEvents(log);
    expect(
      events.map((draft) => [draft.type, 'callId' in draft.data ? draft.data.callId : undefined]),
    ).toEqual([
      ['tool/result', 'c2'],
      ['tool/call', 'c3'],
      ['tool/result', 'c3'],
      ['step/end', undefined],
      ['turn/end', undefined],
    ]);
    expect(events[2]?.data).toMatchObject({
      turn: 1,
      step: 1,
      isError: true,
      error: { code: 'TOOL_OUTCOME_UNKNOWN' },
      content: [{ type: 'text' }],
    });
  });

  it('closes a dead child’s turn in a live log with the reason the caller gives, passing the invariants', () => {
    const log = createSessionLog({ store: memoryStore({ events: logOf(...toolTurn(1)) }) });
    const source = { kind: 'user' } as const;
    log.appendCore('turn/start', { turn: 2, trigger: { kind: 'message', source } });
    log.appendCore('user/message', { content: [{ type: 'text', text: 'again' }], source });
    log.appendCore('step/start', { turn: 2, step: 1 });
    const { events, repairs } = repairEvents(log.events, {
      reason: ({ step }) => ({
        kind: 'error',
        step,
        message: 'the turn actor stopped',
        code: 'INTERNAL_ERROR',
      }),
      message: 'The tool call was lost when its actor stopped.',
    });
    for (const draft of events) log.appendCore(draft.type, draft.data);

    expect(log.events.at(-1)?.data).toEqual({
      turn: 2,
      reason: { kind: 'error', step: 1, message: 'the turn actor stopped', code: 'INTERNAL_ERROR' },
    });
    expect(repairs).toEqual([
      'step/end (turn 2, step 1): closed the open step',
      'turn/end (turn 2): closed the open turn as error',
    ]);
    expect(checkInvariants(log.events)).toEqual([]);
  });

  it('only looks at the open step: earlier steps and their contexts are left alone', () => {
    const log = logOf(
      ts(1),
      um(),
      ss(1, 1),
      am(1, 1, ['c1']),
      tc(1, 1, 'c1'),
      tr(1, 1, 'c1'),
      cm(),
      se(1, 1),
      ss(1, 2),
    );
    const repaired = repairEvents(log).events;
    expect(repaired.map((draft) => draft.type)).toEqual(['step/end', 'turn/end']);
    expect(checkInvariants(logOf(...log.map((e) => ({ type: e.type, data: e.data })), ...repaired))).toEqual(
      [],
    );
  });

  it('leaves a closed turn closed even if the log ends with it', () => {
    expect(repairEvents(logOf(ts(1), um(), te(1))).events).toEqual([]);
  });
});
