import type { ComposedConfig } from './composedWorld.js';

/**
 * The seam configurations of the proof. Each listed seam gets one listener whose decision waits for the
 * driver; the others are empty (their `check` skips them). Four, not `n + 2`: with every listener at once the
 * key space multiplies past the CI budget, and each chart's seams only meet each other through its own chart.
 */
export const composedConfigs: readonly ComposedConfig[] = [
  // Nothing listens: the fast path users get by default (calls with no decision listener).
  { name: 'bare', seams: [], depth: 4 },
  // Every turn seam waits for the driver.
  {
    name: 'turn seams',
    seams: [
      'agent/prompt-submit',
      'agent/pre-step',
      'agent/post-step',
      'agent/request-error',
      'agent/turn-continuation',
      'agent/turn-stop',
    ],
    depth: 5,
  },
  // A call's policy: prepare, pre-execute (and the guard it arms), approval through the channel; and the
  // agent's session start, which only delays the first turn.
  { name: 'policy seams', seams: ['agent/session-start', 'tools/prepare', 'tools/pre-execute'], depth: 4 },
  // A call's body wrapper and its review.
  { name: 'review seams', seams: ['tools/execute', 'tools/post-execute'], depth: 4 },
  // Approvals: pre-execute asks, the channel answers or defers, and the driver answers deferred requests with
  // resolveApproval at any wait. One move deeper: a suspension takes three moves, a stop or a refusal one more.
  { name: 'approvals', seams: ['tools/pre-execute'], depth: 5 },
];

/**
 * Bugs the proof found in the charts under rewrite (engine.md points 1 and 5; reported, not fixed here), each
 * with the moves that trigger it (a move starting with a trigger: `refuse` is `refuseNextWrite` and the
 * examples' `refuse:<type>`): a violation matching one is counted and shown with an example path instead of
 * failing, but only on a path that contains a trigger. Delete an entry once its bug is fixed.
 */
export const knownFindings: readonly {
  name: string;
  triggers: readonly string[];
  /** Moves the path must also contain, every one of them. */
  requires?: readonly string[];
  pattern: RegExp;
}[] = [
  {
    // e.g. bare: followup model@r0:text followup refuseNextWrite dispose — the dispose's inbox/discarded is refused.
    name: 'a refused inbox/discarded of dispose() leaves the dropped items pending in the log (a resume re-queues them)',
    triggers: ['refuse'],
    requires: ['dispose'],
    pattern: /\[NEVER_ENDED\]/,
  },
  {
    // A refused append inside an action run from another actor's custom action (a forwarded CANCEL).
    name: "the turn's `contained` calls enqueue.assign while a parent's custom action runs: XState warns",
    triggers: ['refuse', 'failStore'],
    pattern: /XState warned: Custom actions should not call `assign\(\)`/,
  },
  {
    // e.g. policy: a refused write ends the batch while a stepped call still reports to it.
    name: 'a stepped call reports PREPARED/SETTLED to a batch that already ended',
    triggers: ['refuse', 'failStore'],
    pattern: /XState warned: Event "call\.report" was sent to stopped actor/,
  },
];

/**
 * States and transitions no path reaches under the proof's bounds: `what` is the state node id or the
 * transition's name (`allTransitionNames`), `why` the reason, `coveredBy` the example test that covers it.
 * docs/testing.md lists each one; E05 fails if this list and what is missing differ.
 */
/** The known finding a violation of a path with these moves is, if any. */
export function knownFindingOf(violation: string, moves: readonly string[]) {
  return knownFindings.find(
    (finding) =>
      finding.pattern.test(violation) &&
      moves.some((move) => finding.triggers.some((trigger) => move.startsWith(trigger))) &&
      (finding.requires ?? []).every((required) => moves.some((move) => move.startsWith(required))),
  );
}

export const unreachable: readonly { what: string; why: string; coveredBy: string }[] = [
  {
    what: 'toolBatch.skippingCrashed',
    why: "a stepped call's machine dying: every outside failure is contained by the call",
    coveredBy: 'G01 toolBatch: shortest paths over every batch configuration',
  },
  {
    what: 'turn.opening —INTERNAL_ERROR→ #1',
    why: 'a turn/start refused twice: the proof refuses one write, and a refused turn/start is written again once',
    coveredBy: 'E05 example: a turn/start refused twice leaves its message pending for the resume',
  },
  {
    what: 'turn.open.step.abortedPostStep.running —always→ #0',
    why: 'an injection refused while an interrupted post-step runs: 8 moves, past the depth of 5',
    coveredBy:
      'E05 example: an injection refused while an interrupted post-step runs waits for the post-step',
  },
  {
    what: 'turn.open.step.inFlight.tools —xstate.error.actor.toolBatch→ #0',
    why: 'the batch actor dying: an internal failure no outside outcome causes',
    coveredBy: 'G01 turn: shortest paths over every seam configuration',
  },
  {
    what: 'turn.open.step.inFlight.tools.draining —CANCEL→ #0',
    why: 'a second stop (dispose after cancel): the bounds allow one cancel or dispose',
    coveredBy: 'E05 example: a dispose while a cancelled batch drains is recorded as the later cause',
  },
  {
    what: 'turn.flushing —STEER→ #0',
    why: 'the agent queues steering itself once turn/end is written (inTurn.closed), never forwards it',
    coveredBy: 'G01 turn: shortest paths over every seam configuration',
  },
  {
    what: 'turn.flushing —INJECT→ #0',
    why: 'the agent holds injections itself once turn/end is written (inTurn.closed)',
    coveredBy: 'G01 turn: shortest paths over every seam configuration',
  },
  {
    what: 'toolBatch —call.error→ #0',
    why: "a stepped call's machine dying (internal)",
    coveredBy: 'G01 toolBatch: shortest paths over every batch configuration',
  },
  {
    what: 'toolBatch —xstate.error.actor.scopeWatch→ #0',
    why: 'the scope watcher failing (internal)',
    coveredBy: 'G01 toolBatch: shortest paths over every batch configuration',
  },
  {
    what: 'toolBatch.scheduling —always→ #1',
    why: "a crashed call at the cursor: a call's machine dying (internal)",
    coveredBy: 'G01 toolBatch: shortest paths over every batch configuration',
  },
  {
    what: 'toolBatch.waiting —call.error→ #0',
    why: "a stepped call's machine dying (internal)",
    coveredBy: 'G01 toolBatch: shortest paths over every batch configuration',
  },
  {
    what: 'toolBatch.classifying —ABORT→ #0',
    why: 'classification answers within the same macrostep: no outside event arrives meanwhile',
    coveredBy: 'G01 toolBatch: shortest paths over every batch configuration',
  },
  {
    what: 'toolBatch.classifying —classify.error→ #0',
    why: "the proof's tools declare a fixed concurrency (no throwing concurrency function)",
    coveredBy: 'G01 toolBatch: shortest paths over every batch configuration',
  },
  {
    what: 'toolBatch.placing —always→ #0',
    why: "a crashed call at the cursor: a call's machine dying (internal)",
    coveredBy: 'G01 toolBatch: shortest paths over every batch configuration',
  },
  {
    what: 'toolBatch.placing —always→ #1',
    why: 'a stepped call settling while the next call is classified: only one that settles at its start (no listener chain or body to wait for), and every one in the proof waits for one',
    coveredBy: 'G01 toolBatch: shortest paths over every batch configuration',
  },
  {
    what: 'toolBatch.committing —call.error→ #0',
    why: "a stepped call's machine dying (internal)",
    coveredBy: 'G01 toolBatch: shortest paths over every batch configuration',
  },
  {
    what: 'toolBatch.skippingCrashed —always→ #0',
    why: "a stepped call's machine dying (internal)",
    coveredBy: 'G01 toolBatch: shortest paths over every batch configuration',
  },
  {
    what: 'turn.open.step.suspended.waiting —INJECT→ #0',
    why: 'the agent stops a suspended turn at once (TURN_SUSPENDED): a later inject goes to the agent (turn/held-context)',
    coveredBy: 'G01 turn: shortest paths over every seam configuration',
  },
  {
    what: 'turn.open.step.suspended.waiting —CANCEL→ #0',
    why: 'the agent stops a suspended turn at once: a cancel reaches the agent, which re-enters the turn to cancel it (resuming)',
    coveredBy: 'G01 turn: shortest paths over every seam configuration',
  },
];
