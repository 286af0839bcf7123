import type { ComposedConfig } from './composedWorld.js';

/**
 * The seam configurations of the proof. Each listed seam gets one listener whose decision waits for the
 * driver; the others are empty (their `check` skips them). Four, not `n + 2`: with every listener at once the
 * key space multiplies past the CI budget, and each chart's seams only meet each other through its own chart.
 */
export const composedConfigs: readonly ComposedConfig[] = [
  // Nothing listens: the fast path users get by default (calls with no decision listener).
  { name: 'bare', seams: [], depth: 5 },
  // Every turn and agent seam waits for the driver.
  {
    name: 'turn seams',
    seams: [
      'agent/session-start',
      'agent/prompt-submit',
      'agent/pre-step',
      'agent/post-step',
      'agent/request-error',
      'agent/turn-continuation',
      'agent/turn-stop',
    ],
    depth: 5,
  },
  // A call's policy: prepare, pre-execute (and the guard it arms), approval through the channel.
  { name: 'policy seams', seams: ['tools/prepare', 'tools/pre-execute'], depth: 5 },
  // A call's body wrapper and its review.
  { name: 'review seams', seams: ['tools/execute', 'tools/post-execute'], depth: 5 },
];

/**
 * Bugs the proof found that belong to the charts' rewrite (engine.md points 1 and 5), each with the move that
 * triggers it: a violation matching one is reported (with a count and an example path) instead of failing E04,
 * but only on a path that contains its trigger. Delete an entry once its bug is fixed.
 */
export const knownFindings: readonly { name: string; trigger: string; matches(violation: string): boolean }[] =
  [];

/**
 * States and transitions no path reaches under the proof's bounds: `what` is the state node id or the
 * transition's name (`allTransitionNames`), `why` the reason, `coveredBy` the example test that covers it.
 * docs/testing.md lists each one; E05 fails if this list and what is missing differ.
 */
export const unreachable: readonly { what: string; why: string; coveredBy: string }[] = [];
