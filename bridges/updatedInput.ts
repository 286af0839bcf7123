import type { JsonValue } from '../kernel/index.js';
import type { FiredEvent, ResultAnnotation } from './fire.js';
import type { Dialect, MergedVerdict } from './types.js';

/** The input the PreToolUse hooks settled on: the last config entry's `updatedInput`. */
export interface HookRewrite {
  readonly handlerId: string;
  readonly arguments: JsonValue;
  /** Earlier config entries whose `updatedInput` this one replaced, in config order. */
  readonly supersedes: readonly string[];
}

/**
 * Folds the `updatedInput`s of one PreToolUse firing in config order, each replacing the whole
 * input, so the later entry wins whichever hook finished last; every earlier one is recorded as
 * superseded. Codex drops them all when a hook blocks (as Codex does).
 * @param results the firing's results, in config order
 * @param merged their merged verdict
 * @param dialect whose rules apply
 */
export function foldUpdatedInputs(
  results: FiredEvent['results'],
  merged: MergedVerdict,
  dialect: Dialect,
): readonly ResultAnnotation[] {
  if (dialect === 'codex' && merged.kind === 'block')
    return notHonored(results, 'updatedInput not honored: a hook blocked the call (Codex)');
  const rewriting = results.filter((result) => result.verdict.updatedInput !== undefined);
  const winner = rewriting.at(-1);
  const replaced = rewriting.slice(0, -1).map((result) => result.handler.id);
  return results.map((result): ResultAnnotation => {
    if (result === winner) {
      const over = replaced.length === 0 ? '' : ` (replacing ${replaced.join(', ')})`;
      return { updatedInput: 'applied', notes: [`updatedInput applied at tools/prepare${over}`] };
    }
    if (result.verdict.updatedInput === undefined || winner === undefined) return {};
    return {
      updatedInput: 'superseded',
      notes: [`updatedInput superseded by ${winner.handler.id} (later in config order)`],
    };
  });
}

/** The rewrite a folded firing applies, read back from its annotations (`undefined`: none). */
export function appliedRewrite(fired: FiredEvent): HookRewrite | undefined {
  const index = fired.annotations.findIndex((annotation) => annotation.updatedInput === 'applied');
  const winner = fired.results[index];
  if (winner?.verdict.updatedInput === undefined) return undefined;
  return {
    handlerId: winner.handler.id,
    arguments: winner.verdict.updatedInput,
    supersedes: fired.results
      .filter((_, i) => fired.annotations[i]?.updatedInput === 'superseded')
      .map((result) => result.handler.id),
  };
}

/**
 * Marks every `updatedInput` of a firing as not honored (the input was sealed before these hooks
 * ran), with the reason; `extra` is added to every result.
 */
export function notHonored(
  results: FiredEvent['results'],
  why: string,
  extra: readonly string[] = [],
): readonly ResultAnnotation[] {
  return results.map((result) =>
    result.verdict.updatedInput === undefined
      ? extra.length === 0
        ? {}
        : { notes: extra }
      : { updatedInput: 'not-honored', notes: [...extra, why] },
  );
}
