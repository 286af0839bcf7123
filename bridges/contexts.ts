import type { ContentBlock, HookContext, MessageSource } from '../kernel/index.js';
import type { Dialect, HookEventName } from './types.js';

/** The source of everything a hook of `dialect` authored for `event`. */
export function hookSource(dialect: Dialect, event: HookEventName): MessageSource {
  return { kind: 'hook', dialect, event };
}

/** A text block. */
export function text(value: string): ContentBlock {
  return { type: 'text', text: value };
}

/** One model-facing context per hook that produced one, in config order. */
export function hookContexts(
  dialect: Dialect,
  event: HookEventName,
  texts: readonly string[],
): HookContext[] {
  const source = hookSource(dialect, event);
  return texts.map((value) => ({ content: [text(value)], source }));
}

/** `decision` with `contexts` placed before its own (downstream contexts survive). */
export function prependContexts<TDecision extends { additionalContexts?: HookContext[] | undefined }>(
  decision: TDecision,
  contexts: readonly HookContext[],
): TDecision {
  if (contexts.length === 0) return decision;
  return { ...decision, additionalContexts: [...contexts, ...(decision.additionalContexts ?? [])] };
}
