import { runFold } from './fold.js';
import { freezeContext } from './freeze.js';
import type { ListenerEntry, ReportFailure } from './listener-entry.js';
import { runAround, runOnion, runWaterfall } from './onion.js';
import { runAwaitedNotify, runFirstResult, runGuards, runSerial } from './sequence.js';
import type { DecidedSeamName, DispatchScope, PrepareStep, SeamName, SeamSet } from './types.js';

/** What a snapshot needs from its registry. */
export interface SeamSetDeps {
  readonly report: ReportFailure;
  /** Emits `seam/decided` through the registry's notify. */
  readonly emitDecided: (
    seam: DecidedSeamName,
    decidedBy: string,
    decision: unknown,
    scope: DispatchScope,
    steps?: readonly PrepareStep[],
  ) => void;
}

const none: readonly ListenerEntry[] = Object.freeze([]);

/** Builds an immutable `SeamSet` over already-filtered listener lists (dispatch order, outermost first). */
export function createSeamSet(
  byName: ReadonlyMap<SeamName | 'guard', readonly ListenerEntry[]>,
  deps: SeamSetDeps,
): SeamSet {
  const listOf = (name: SeamName | 'guard'): readonly ListenerEntry[] => byName.get(name) ?? none;
  const set: SeamSet = {
    has: (name) => listOf(name).length > 0,
    async waterfall(name, ctx, defaultDecision, scope) {
      const signal = scope.signal ?? readSignal(ctx);
      const outcome = await runWaterfall(listOf(name), name, ctx, defaultDecision, signal);
      deps.emitDecided(name, outcome.decidedBy, outcome.decision, scope);
      return outcome;
    },
    async fold(ctx, accept, scope) {
      const outcome = await runFold(listOf('tools/prepare'), ctx, accept, scope.signal ?? ctx.signal);
      if (outcome.ok) {
        const last = outcome.steps.at(-1);
        const decision = last ? { kind: 'rewrite', arguments: last.arguments } : { kind: 'keep' };
        deps.emitDecided('tools/prepare', outcome.decidedBy, decision, scope, outcome.steps);
      }
      return outcome;
    },
    async approval(ctx, ask, scope) {
      const signal = scope.signal ?? ctx.exec.signal;
      const outcome = await runOnion(listOf('tools/approval'), 'tools/approval', ctx, ask, signal);
      deps.emitDecided('tools/approval', outcome.decidedBy, outcome.decision, scope);
      return outcome;
    },
    around: (exec, core) => runAround(listOf('tools/execute'), exec, core),
    serial: (name, ctx) => runSerial(listOf(name), name, freezeContext(ctx)),
    firstResult: (name, ctx) => runFirstResult(listOf(name), freezeContext(ctx)),
    awaitedNotify: (name, ctx, scope) =>
      runAwaitedNotify(listOf(name), name, freezeContext(ctx), deps.report, scope),
    guards: (exec) => runGuards(listOf('guard'), exec),
  };
  return Object.freeze(set);
}

// Most seam contexts carry the turn or call signal; a scope without one falls back to it.
function readSignal(ctx: object): AbortSignal | undefined {
  const signal = (ctx as { signal?: unknown }).signal;
  return signal instanceof AbortSignal ? signal : undefined;
}
