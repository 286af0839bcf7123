import { describe, expect, it } from 'vitest';
import { checkInvariants, formatViolation } from '../../../session/index.js';
import {
  am,
  cm,
  found,
  logOf,
  pb,
  pluginEvent,
  se,
  sm,
  ss,
  step,
  tc,
  te,
  toolTurn,
  tr,
  ts,
  um,
} from './build.js';

const text = (value: string) => [{ type: 'text' as const, text: value }];

describe('checkInvariants', () => {
  it('accepts a well-formed log of tool, injection, blocked and aborted turns', () => {
    const log = logOf(
      ...toolTurn(1),
      ts(2, 'injection'),
      cm('preamble'),
      te(2),
      ts(3),
      pb('policy'),
      te(3, { kind: 'rejected', reason: 'policy' }),
      ts(4),
      te(4, { kind: 'aborted' }),
    );
    expect(checkInvariants(log)).toEqual([]);
  });

  it('reports a core event whose data does not match its schema', () => {
    const log = logOf(ts(1), { type: 'user/message', data: { content: 'not blocks' } }, te(1));
    expect(found(log)).toContainEqual(['0 event-data', 1, 'INVALID_EVENT_DATA']);
  });

  describe('1 contiguous-seq', () => {
    it('reports one violation per gap, at the event after it', () => {
      const log = logOf(...toolTurn(1)).map((event, index) =>
        index >= 3 ? { ...event, seq: event.seq + 2 } : event,
      );
      expect(found(log)).toEqual([['1 contiguous-seq', 5, 'SEQ_GAP']]);
    });

    it('accepts seq 0, 1, 2, …', () => {
      expect(found(logOf(...toolTurn(1)))).toEqual([]);
    });
  });

  describe('2 turn-enclosure', () => {
    it('reports an event while no turn is open, also a plugin event', () => {
      expect(found(logOf(pluginEvent(), ts(1), um(), te(1)))).toEqual([
        ['2 turn-enclosure', 0, 'OUTSIDE_TURN'],
      ]);
    });

    it('reports a turn/start while a turn is open', () => {
      expect(found(logOf(ts(1), um(), ts(2), um(), te(2)))).toContainEqual([
        '2 turn-enclosure',
        2,
        'TURN_ALREADY_OPEN',
      ]);
    });

    it('reports turn numbers that skip', () => {
      expect(found(logOf(ts(1), um(), te(1), ts(3), um(), te(3)))).toEqual([
        ['2 turn-enclosure', 3, 'TURN_NUMBER'],
      ]);
    });

    it('accepts turns 1, 2 with plugin events inside them', () => {
      expect(found(logOf(ts(1), um(), pluginEvent(), te(1), ts(2), pluginEvent(), um(), te(2)))).toEqual([]);
    });
  });

  describe('3 steps', () => {
    it('reports a first step that is not numbered 1', () => {
      expect(found(logOf(ts(1), um(), ...step(1, 2), te(1)))).toEqual([['3 steps', 2, 'STEP_NUMBER']]);
    });

    it('reports an assistant/message naming another step than the open one', () => {
      expect(found(logOf(ts(1), um(), ss(1, 1), am(1, 2), se(1, 1), te(1)))).toEqual([
        ['3 steps', 3, 'WRONG_STEP'],
      ]);
    });

    it('reports a turn/end while a step is open', () => {
      expect(found(logOf(ts(1), um(), ss(1, 1), am(1, 1), te(1)))).toContainEqual([
        '3 steps',
        4,
        'TURN_END_IN_STEP',
      ]);
    });

    it('accepts steps 1, 2 each closed before the next', () => {
      expect(found(logOf(...toolTurn(1), ...toolTurn(2)))).toEqual([]);
    });
  });

  describe('4 balance', () => {
    it('reports a turn left open, at its turn/start', () => {
      expect(found(logOf(ts(1), um(), ...step(1, 1)))).toEqual([['4 balance', 0, 'TURNS_UNBALANCED']]);
    });

    it('accepts a log whose turns and steps are all closed', () => {
      expect(found(logOf(...toolTurn(1)))).toEqual([]);
    });
  });

  describe('5 tool-pairing', () => {
    const stepWith = (...middle: ReturnType<typeof tc>[]) =>
      logOf(ts(1), um(), ss(1, 1), am(1, 1, ['c1', 'c2']), ...middle, se(1, 1), ...step(1, 2), te(1));

    it('reports a tool-call block without tool/result, at the step/end', () => {
      const log = stepWith(tc(1, 1, 'c1'), tc(1, 1, 'c2'), tr(1, 1, 'c1'));
      expect(found(log)).toEqual([['5 tool-pairing', 7, 'MISSING_RESULT']]);
    });

    it('reports tool/results out of model order', () => {
      const log = stepWith(tc(1, 1, 'c1'), tc(1, 1, 'c2'), tr(1, 1, 'c2'), tr(1, 1, 'c1'));
      expect(found(log)).toEqual([['5 tool-pairing', 7, 'RESULT_ORDER']]);
    });

    it('reports a tool/result before its tool/call', () => {
      const log = stepWith(tr(1, 1, 'c1'), tc(1, 1, 'c1'), tc(1, 1, 'c2'), tr(1, 1, 'c2'));
      expect(found(log)).toContainEqual(['5 tool-pairing', 4, 'RESULT_WITHOUT_CALL']);
    });

    it('reports a tool/call the assistant message never asked for', () => {
      const log = stepWith(tc(1, 1, 'c1'), tc(1, 1, 'c2'), tc(1, 1, 'c9'), tr(1, 1, 'c1'), tr(1, 1, 'c2'));
      expect(found(log)).toEqual([['5 tool-pairing', 6, 'CALL_WITHOUT_BLOCK']]);
    });

    it('accepts every block paired once, results in model order after their calls', () => {
      expect(found(stepWith(tc(1, 1, 'c1'), tr(1, 1, 'c1'), tc(1, 1, 'c2'), tr(1, 1, 'c2')))).toEqual([]);
    });
  });

  describe('6 active-batch-adjacency', () => {
    it('reports a context/message inside the tool batch', () => {
      const log = logOf(
        ts(1),
        um(),
        ss(1, 1),
        am(1, 1, ['c1']),
        tc(1, 1, 'c1'),
        cm(),
        tr(1, 1, 'c1'),
        se(1, 1),
        te(1),
      );
      expect(found(log)).toEqual([['6 active-batch-adjacency', 5, 'MESSAGE_IN_ACTIVE_STEP']]);
    });

    it('reports a steering/message between step/start and the assistant/message', () => {
      const log = logOf(ts(1), um(), ss(1, 1), sm(1), am(1, 1), se(1, 1), te(1));
      expect(found(log)).toEqual([['6 active-batch-adjacency', 3, 'MESSAGE_IN_ACTIVE_STEP']]);
    });

    it('accepts contexts after the last tool/result and in a failed step', () => {
      const failedStep = [ss(1, 3), cm('during failed request'), se(1, 3)];
      expect(found(logOf(...toolTurn(1).slice(0, -1), ...failedStep, te(1)))).toEqual([]);
    });
  });

  describe('7 step-contexts', () => {
    it('accepts contexts of a step after its results, in acceptance order', () => {
      const log = logOf(...toolTurn(1));
      expect(found(log, { stepContexts: [{ turn: 1, step: 1, contents: [text('after batch')] }] })).toEqual(
        [],
      );
    });

    it('reports a context accepted during a step but never appended, at the step/end', () => {
      const log = logOf(...toolTurn(1));
      const stepContexts = [{ turn: 1, step: 1, contents: [text('after batch'), text('lost')] }];
      expect(found(log, { stepContexts })).toEqual([['7 step-contexts', 9, 'CONTEXT_MISSING']]);
    });

    it('reports a context appended after its step closed', () => {
      const log = logOf(ts(1), um(), ...step(1, 1), cm('late'), te(1));
      const stepContexts = [{ turn: 1, step: 1, contents: [text('late')] }];
      expect(found(log, { stepContexts })).toEqual([['7 step-contexts', 5, 'CONTEXT_OUTSIDE_STEP']]);
    });

    it('reports contexts out of acceptance order', () => {
      const log = logOf(ts(1), um(), ss(1, 1), am(1, 1), cm('a'), cm('b'), se(1, 1), te(1));
      const stepContexts = [{ turn: 1, step: 1, contents: [text('b'), text('a')] }];
      expect(found(log, { stepContexts })).toEqual([['7 step-contexts', 4, 'CONTEXT_ORDER']]);
    });
  });

  describe('8 one-send-one-turn', () => {
    it('reports a second prompt in one turn', () => {
      expect(found(logOf(ts(1), um('a'), um('b'), te(1)))).toEqual([
        ['8 one-send-one-turn', 2, 'SECOND_PROMPT'],
      ]);
    });

    it('reports a turn that ends rejected without prompt/blocked', () => {
      const log = logOf(ts(1), um(), te(1, { kind: 'rejected', reason: 'no' }));
      expect(found(log)).toEqual([['8 one-send-one-turn', 2, 'REJECTED_WITHOUT_BLOCK']]);
    });

    it('reports a blocked turn that runs a step', () => {
      const log = logOf(ts(1), pb('no'), ...step(1, 1), te(1, { kind: 'rejected', reason: 'no' }));
      expect(found(log)).toEqual([['8 one-send-one-turn', 2, 'BLOCKED_WITH_STEPS']]);
    });

    it('reports a completed turn that never recorded its prompt', () => {
      expect(found(logOf(ts(1), te(1)))).toEqual([['8 one-send-one-turn', 1, 'MISSING_PROMPT']]);
    });

    it('accepts a blocked turn rejected with the same reason and an aborted turn without prompt', () => {
      const log = logOf(
        ts(1),
        pb('no'),
        te(1, { kind: 'rejected', reason: 'no' }),
        ts(2),
        te(2, { kind: 'aborted' }),
      );
      expect(found(log)).toEqual([]);
    });
  });

  describe('9 injection-turn-shape', () => {
    it('reports an injection turn with more than its context', () => {
      expect(found(logOf(ts(1, 'injection'), cm(), cm(), te(1)))).toEqual([
        ['9 injection-turn-shape', 2, 'INJECTION_TURN_SHAPE'],
      ]);
    });

    it('reports an injection turn that does not end completed', () => {
      expect(found(logOf(ts(1, 'injection'), cm(), te(1, { kind: 'aborted' })))).toEqual([
        ['9 injection-turn-shape', 2, 'INJECTION_TURN_REASON'],
      ]);
    });

    it('accepts turn/start, context/message, turn/end{completed}, and a crash-repaired one', () => {
      const log = logOf(ts(1, 'injection'), cm(), te(1), ts(2, 'injection'), te(2, { kind: 'interrupted' }));
      expect(found(log)).toEqual([]);
    });
  });

  describe('11 terminal-stop', () => {
    const stopped = { kind: 'completed', stoppedBy: 'policy', stopReason: 'done' } as const;

    it('reports steering after the last step/end of a stopped turn', () => {
      const log = logOf(ts(1), um(), ...step(1, 1), sm(1), te(1, stopped));
      expect(found(log)).toEqual([['11 terminal-stop', 5, 'STEERING_AFTER_STOP']]);
    });

    it('accepts steering drained before a later step of a stopped turn', () => {
      const log = logOf(ts(1), um(), ...step(1, 1), sm(1), ...step(1, 2), te(1, stopped));
      expect(found(log)).toEqual([]);
    });
  });

  it('sorts violations by seq and formats each as one line', () => {
    const log = logOf(pluginEvent(), ts(1), um('a'), um('b'), te(1));
    const violations = checkInvariants(log);
    expect(violations.map((v) => v.seq)).toEqual([0, 3]);
    expect(violations.map(formatViolation)).toMatchInlineSnapshot(`
      [
        "invariant 2 turn-enclosure violated at seq 0: test/note while no turn is open [OUTSIDE_TURN]",
        "invariant 8 one-send-one-turn violated at seq 3: turn 1 records user/message after user/message at seq 2 [SECOND_PROMPT]",
      ]
    `);
  });
});
