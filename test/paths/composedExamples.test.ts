import { describe, expect, it } from 'vitest';
import type { LogEvent } from '../../index.js';
import { pendingInboxItems } from '../../session/index.js';
import { composedConfigs, knownFindingOf } from './support/composedConfigs.js';
import { runComposedExample } from './support/composedExplore.js';

/**
 * The composed agent on paths the proof's bounds do not reach (docs/testing.md lists why): each example names
 * its moves after the first `followup`, and checks that the transition is taken and the log stays sound.
 */
const config = (name: string) => composedConfigs.find((entry) => entry.name === name)!;
const turnSeams = ['agent/prompt-submit@t1s0:allow', 'agent/pre-step@t1s1:ok', 'model@r0:text'];

// `open`'s one failure edge: a refused append closes the turn from wherever it happened.
const failureEdge = 'turn.open —always→ #0';

const examples: { name: string; config: string; moves: string[]; takes: string }[] = [
  {
    name: "a refused context/message of the step's FIFO closes the turn before steering is drained",
    config: 'bare',
    moves: ['inject', 'refuse:context/message', 'model@r0:text'],
    takes: failureEdge,
  },
  {
    name: 'a refused steering/message after the answer closes the turn before post-step',
    config: 'bare',
    moves: ['steer', 'refuse:steering/message', 'model@r0:text'],
    takes: failureEdge,
  },
  {
    name: 'an injection refused while turn-continuation runs closes the turn',
    config: 'turn seams',
    moves: [...turnSeams, 'agent/post-step@t1s1:ok', 'refuse:context/message', 'inject'],
    takes: failureEdge,
  },
  {
    name: 'an injection refused while turn-stop runs closes the turn',
    config: 'turn seams',
    moves: [
      ...turnSeams,
      'agent/post-step@t1s1:ok',
      'agent/turn-continuation@t1s1:pass',
      'refuse:context/message',
      'inject',
    ],
    takes: failureEdge,
  },
  {
    name: 'an injection refused while an interrupted post-step runs waits for the post-step',
    config: 'turn seams',
    moves: [
      ...turnSeams.slice(0, 2),
      'model@r0:parallel',
      'cancel',
      'body@r0c0:ok',
      'body@r0c1:ok',
      'refuse:context/message',
      'inject',
      'agent/post-step@t1s1:ok',
    ],
    takes: 'turn.open.step.abortedPostStep.running —always→ #0',
  },
  {
    name: 'a dispose while a cancelled batch drains is recorded as the later cause',
    config: 'bare',
    moves: ['model@r0:parallel', 'cancel', 'dispose'],
    takes: 'turn.open.step.inFlight.tools.draining —CANCEL→ #0',
  },
];

describe('E05 examples: the composed agent beyond the proof bounds', () => {
  for (const example of examples) {
    it(`E05 example: ${example.name}`, async () => {
      const { run, coverage } = await runComposedExample(config(example.config), example.moves);
      expect(coverage.transitions.get('turn') ?? new Set()).toContain(example.takes);
      // Sound, but for the known findings this refusal triggers (reported in E04 too).
      expect(
        run.violations.filter((violation) => knownFindingOf(violation, example.moves) === undefined),
      ).toEqual([]);
    });
  }
});

/** The log's events of some types, as `type` or `type(detail)`, in order. */
const shape = (events: readonly LogEvent[], types: readonly string[]) =>
  events
    .filter((event) => types.includes(event.type))
    .map((event) => {
      const data = event.data as { callId?: string; cause?: string; trigger?: { itemId?: string } };
      const detail = data.callId ?? data.cause ?? data.trigger?.itemId;
      return detail === undefined ? event.type : `${event.type}(${detail})`;
    });

/** Runs an example and checks its log is sound, but for the known findings its moves trigger. */
async function sound(configName: string, moves: string[]) {
  const { run, coverage } = await runComposedExample(config(configName), moves);
  expect(run.violations.filter((violation) => knownFindingOf(violation, moves) === undefined)).toEqual([]);
  return { events: run.events, coverage };
}

// Bugs the proof found after a refused write (docs/testing.md, "Known findings"), each fixed in the charts.
describe('E04 findings, fixed: what the store refused is written again or handed back', () => {
  it('E04 fixed: a refused step/end is written again before turn/end', async () => {
    // Refused after the answer: the step stays open, and closing writes it.
    const answered = await sound('bare', ['refuse:step/end', 'model@r0:text']);
    expect(shape(answered.events, ['step/start', 'step/end', 'turn/end'])).toEqual([
      'step/start',
      'step/end',
      'turn/end',
    ]);
    // Refused while closing (a cancel): closing writes it again.
    const { events, coverage } = await sound('bare', ['refuse:step/end', 'cancel']);
    expect(shape(events, ['step/start', 'step/end', 'turn/end'])).toEqual([
      'step/start',
      'step/end',
      'turn/end',
    ]);
    expect(coverage.transitions.get('turn')).toContain('turn.closing.closingStep —always→ #0');
  });

  it('E04 fixed: a refused turn/end is written again, so the next turn opens after it', async () => {
    const { events, coverage } = await sound('bare', ['followup', 'refuse:turn/end', 'model@r0:text']);
    expect(shape(events, ['turn/start', 'turn/end'])).toEqual([
      'turn/start(m1)',
      'turn/end',
      'turn/start(m2)',
      'turn/end',
    ]);
    expect(coverage.transitions.get('turn')).toContain('turn.closing.ending —always→ #0');
  });

  it("E04 fixed: a refused tool/result fails the batch before any later call's result, so the repair keeps model order", async () => {
    const { events } = await sound('bare', [
      'model@r0:parallel',
      'body@r0c1:ok',
      'refuse:tool/result',
      'body@r0c0:ok',
    ]);
    expect(shape(events, ['tool/call', 'tool/result'])).toEqual([
      'tool/call(r0c0)',
      'tool/call(r0c1)',
      'tool/result(r0c0)',
      'tool/result(r0c1)',
    ]);
    // Both results are the repair's: nothing was recorded after the refused one.
    const results = events.filter((event) => event.type === 'tool/result');
    expect(results.map((event) => (event.data as { isError: boolean }).isError)).toEqual([true, true]);
  });

  it('E04 fixed: a claimed message whose turn/start is refused gets its turn/start written again, and runs', async () => {
    const { events, coverage } = await sound('bare', ['model@r0:text', 'followup', 'refuse:turn/start']);
    expect(shape(events, ['turn/start', 'user/message'])).toEqual([
      'turn/start(m1)',
      'user/message',
      'turn/start(m2)',
      'user/message',
    ]);
    expect(coverage.transitions.get('turn')).toContain('turn.opening —INTERNAL_ERROR→ #0');
  });

  it('E04 fixed: a steering item whose steering/message is refused is handed back and runs as a message', async () => {
    const { events } = await sound('bare', ['steer', 'refuse:steering/message', 'model@r0:text']);
    expect(shape(events, ['turn/start', 'steering/message', 'turn/end'])).toEqual([
      'turn/start(m1)',
      'turn/end',
      'turn/start(m2)',
      'turn/end',
    ]);
  });

  it('E04 fixed: a message disposed during prompt-submit is discarded with the dropped inbox', async () => {
    const { events } = await sound('turn seams', ['dispose']);
    expect(shape(events, ['turn/start', 'inbox/discarded', 'user/message', 'turn/end'])).toEqual([
      'turn/start(m1)',
      'inbox/discarded(dispose)',
      'turn/end',
    ]);
  });

  it('E04 fixed: a refused turn/suspended closes the turn with repaired results instead of suspending it', async () => {
    const { events, coverage } = await sound('approvals', [
      'model@r0:parallel',
      'tools/pre-execute@r0c0:ask',
      'approval@r0c0:deferred',
      'refuse:turn/suspended',
    ]);
    expect(shape(events, ['tool/call', 'tool/result', 'turn/suspended', 'turn/end'])).toEqual([
      'tool/call(r0c0)',
      'tool/call(r0c1)',
      'tool/result(r0c0)',
      'tool/result(r0c1)',
      'turn/end',
    ]);
    expect(coverage.transitions.get('turn')).toContain('turn.open.step.suspended.recording —always→ #0');
  });

  it('E04 fixed: a refused turn/resumed resumes nothing: the turn stays suspended and the next resume writes it', async () => {
    const moves = [
      'model@r0:exclusive',
      'tools/pre-execute@r0c0:ask',
      'approval@r0c0:deferred',
      'resolve@a1:allowed-once',
      'refuse:turn/resumed',
    ];
    const { run } = await runComposedExample(config('approvals'), moves);
    expect(run.violations).toEqual([]);
    // Refused once: no call ran while the log said suspended; the resume that followed wrote turn/resumed first,
    // then the approved call and the exclusive call that had not started.
    expect(
      shape(run.events, ['turn/suspended', 'turn/resumed', 'tool/call', 'tool/result', 'turn/end']),
    ).toEqual([
      'tool/call(r0c0)',
      'turn/suspended',
      'turn/resumed',
      'tool/result(r0c0)',
      'tool/call(r0c1)',
      'tool/result(r0c1)',
      'turn/end',
    ]);
  });

  it('E05 example: a turn/start refused twice leaves its message pending for the resume', async () => {
    const moves = ['model@r0:text', 'followup', 'refuse:turn/start*2'];
    const { run, coverage } = await runComposedExample(config('bare'), moves);
    expect(coverage.transitions.get('turn')).toContain('turn.opening —INTERNAL_ERROR→ #1');
    expect(shape(run.events, ['turn/start'])).toEqual(['turn/start(m1)']);
    // The store refused the claim twice: the log keeps m2 pending, and a resume re-queues it.
    expect(pendingInboxItems(run.events).map((item) => item.accepted.id)).toEqual(['m2']);
    expect(run.violations).toEqual([
      'invariant 12 inbox-log violated at seq 7: m2 was accepted but never claimed, drained or discarded [NEVER_ENDED]',
    ]);
  });
});
