import type { HookContext } from '../kernel/index.js';
import { capContent, capHookContext, capReason } from './capText.js';

type Decision = Record<string, unknown>;

/**
 * Caps what a listener's decision hands the model or the log — a `reason`, `additionalContexts`, a
 * continuation's `reason.content` — as hook output is capped (`MAX_CONTEXT_CHARS` each). Returns the
 * same object when nothing is cut, so a pass-through keeps its identity (and its author).
 */
export function capDecision<T>(decision: T): T {
  if (decision === null || typeof decision !== 'object') return decision;
  const record = decision as Decision;
  let changed: Decision | undefined;
  const set = (key: string, value: unknown): void => {
    changed ??= { ...record };
    changed[key] = value;
  };
  const { reason, additionalContexts } = record;
  if (typeof reason === 'string') {
    const capped = capReason(reason, 'plugin').text;
    if (capped !== reason) set('reason', capped);
  } else if (isContinuationReason(reason)) {
    const content = capContent(reason.content, 'plugin');
    if (content !== reason.content) set('reason', { ...reason, content: [...content] });
  }
  if (Array.isArray(additionalContexts)) {
    const contexts = (additionalContexts as HookContext[]).map((context) =>
      capHookContext(context, 'plugin'),
    );
    if (contexts.some((context, index) => context !== additionalContexts[index]))
      set('additionalContexts', contexts);
  }
  return (changed ?? decision) as T;
}

/** A guard's denial reason, capped like any other reason. */
export function capDenial(reason: string): string {
  return capReason(reason, 'plugin').text;
}

function isContinuationReason(value: unknown): value is { content: HookContext['content'] } {
  return (
    value !== null && typeof value === 'object' && Array.isArray((value as { content?: unknown }).content)
  );
}
