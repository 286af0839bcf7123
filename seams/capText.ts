import { type ContentBlock, cutChars, type HookContext } from '../kernel/index.js';
import { cutContent, type TextMeasure } from './cutContent.js';

/** Longest reason or additional context kept from one hook or plugin (the rest is cut with a note). */
export const MAX_CONTEXT_CHARS = 10_000;

/** Who wrote a capped text, as the note names it. */
export type CapSource = 'hook' | 'plugin' | 'tool';

const CAPPED = /^\n\[truncated: \d+ more characters from the (?:hook|plugin|tool) were dropped\]$/;

/** Whether a text was already cut by `capContext` (its first `MAX_CONTEXT_CHARS` then the note). */
function isCapped(text: string): boolean {
  const at = text.lastIndexOf('\n[truncated: ');
  return at !== -1 && at <= MAX_CONTEXT_CHARS && CAPPED.test(text.slice(at));
}

/** How many characters of a text count against the cap (an already capped text counts as full). */
function countedLength(text: string): number {
  return isCapped(text) ? MAX_CONTEXT_CHARS : text.length;
}

function dropNote(cut: number, from: CapSource): string {
  return `\n[truncated: ${cut} more characters from the ${from} were dropped]`;
}

/**
 * Caps a model-facing text at `MAX_CONTEXT_CHARS`, saying how much was cut; a text it already capped
 * is returned as it is (a hook's capped context passes the seam cap unchanged).
 */
export function capContext(text: string, from: CapSource = 'hook'): { text: string; note?: string } {
  if (countedLength(text) <= MAX_CONTEXT_CHARS) return { text };
  const kept = cutChars(text, MAX_CONTEXT_CHARS);
  const cut = text.length - kept.length;
  return {
    text: `${kept}${dropNote(cut, from)}`,
    note: `additionalContext capped at ${MAX_CONTEXT_CHARS} characters (${cut} dropped)`,
  };
}

/** Caps a deny or block reason like a context (a 1 MiB stderr must not become the model's input). */
export function capReason(text: string, from: CapSource = 'hook'): { text: string; note?: string } {
  const capped = capContext(text, from);
  return capped.note === undefined
    ? capped
    : { text: capped.text, note: capped.note.replace('additionalContext', 'reason') };
}

const chars: TextMeasure = { size: countedLength, cut: cutChars };

/**
 * Caps content blocks together at `MAX_CONTEXT_CHARS` (text and reasoning are cut, a tool-call block
 * that does not fit is dropped); the same array when nothing is cut.
 */
export function capContent(content: readonly ContentBlock[], from: CapSource): readonly ContentBlock[] {
  const cut = cutContent(content, MAX_CONTEXT_CHARS, chars);
  if (cut === undefined) return content;
  const { kept } = cut;
  const note = dropNote(cut.total - cut.keptSize, from);
  const last = kept.at(-1);
  if (last?.type === 'text') kept[kept.length - 1] = { type: 'text', text: `${last.text}${note}` };
  else kept.push({ type: 'text', text: note.slice(1) });
  return kept;
}

/** A context with its content capped; the same object when nothing is cut. */
export function capHookContext(context: HookContext, from: CapSource): HookContext {
  const content = capContent(context.content, from);
  return content === context.content ? context : { ...context, content: [...content] };
}
