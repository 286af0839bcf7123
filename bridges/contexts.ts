import type { ContentBlock, HookContext, MessageSource } from '../kernel/index.js';
import type { Dialect, HookEventName, MergedVerdict } from './types.js';

/** The source of everything a hook of `dialect` authored for `event`. */
export function hookSource(dialect: Dialect, event: HookEventName): MessageSource {
  return { kind: 'hook', dialect, event };
}

/** A text block. */
export function text(value: string): ContentBlock {
  return { type: 'text', text: value };
}

/** One model-facing context per hook that produced one, in config order, its source naming that hook. */
export function hookContexts(
  dialect: Dialect,
  event: HookEventName,
  merged: Pick<MergedVerdict, 'contexts' | 'contextBy'>,
): HookContext[] {
  const source = hookSource(dialect, event);
  return merged.contexts.map((value, index) => {
    const handlerId = merged.contextBy?.[index];
    return { content: [text(value)], source: handlerId ? { ...source, handlerId } : source };
  });
}

/** The `by` of a decision a hook made (nothing when no handler is named). */
export function byOf(handlerIds: string | undefined): { by?: string } {
  return handlerIds === undefined || handlerIds === '' ? {} : { by: handlerIds };
}

/** `decision` with `contexts` placed before its own (downstream contexts survive). */
export function prependContexts<TDecision extends { additionalContexts?: HookContext[] | undefined }>(
  decision: TDecision,
  contexts: readonly HookContext[],
): TDecision {
  if (contexts.length === 0) return decision;
  return { ...decision, additionalContexts: [...contexts, ...(decision.additionalContexts ?? [])] };
}
