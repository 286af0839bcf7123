import { describe, expect, it } from 'vitest';
import { composedConfigs, knownFindingOf } from './support/composedConfigs.js';
import { runComposedExample } from './support/composedExplore.js';

/**
 * The composed agent on paths the proof's bounds do not reach (docs/testing.md lists why): each example names
 * its moves after the first `followup`, and checks that the transition is taken and the log stays sound.
 */
const config = (name: string) => composedConfigs.find((entry) => entry.name === name)!;
const turnSeams = ['agent/prompt-submit@t1s0:allow', 'agent/pre-step@t1s1:ok', 'model@r0:text'];

const examples: { name: string; config: string; moves: string[]; takes: string }[] = [
  {
    name: "a refused context/message of the step's FIFO closes the turn before steering is drained",
    config: 'bare',
    moves: ['inject', 'refuse:context/message', 'model@r0:text'],
    takes: 'turn.open.step.postBatchSteering —always→ #0',
  },
  {
    name: 'a refused steering/message after the answer closes the turn before post-step',
    config: 'bare',
    moves: ['steer', 'refuse:steering/message', 'model@r0:text'],
    takes: 'turn.open.step.postStep.check —always→ #0',
  },
  {
    name: 'an injection refused while turn-continuation runs closes the turn',
    config: 'turn seams',
    moves: [...turnSeams, 'agent/post-step@t1s1:ok', 'refuse:context/message', 'inject'],
    takes: 'turn.open.step.continuation.running —always→ #0',
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
    takes: 'turn.open.step.turnStop.running —always→ #0',
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
