import { type ContentBlock, cutChars, type ToolResult } from '../kernel/index.js';
import { cutContent, type TextMeasure } from '../seams/index.js';
import { deepFreezeJson } from './json.js';
import type { ToolDefinition } from './types.js';

/** The longest content (UTF-8 bytes of its texts) a tool result keeps when its tool sets no `maxContentBytes`. */
export const DEFAULT_MAX_CONTENT_BYTES = 1024 * 1024;

/** Cuts UTF-8 text at a code point boundary: never half a character. */
export function cutUtf8(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return '';
  // Every UTF-16 unit takes at least one UTF-8 byte, so the cut lies within the first `maxBytes` units.
  const prefix = cutChars(text, maxBytes);
  const bytes = Buffer.from(prefix, 'utf8');
  if (bytes.length <= maxBytes) return prefix;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to the start of the character that does not fit.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

const utf8: TextMeasure = { size: (text) => Buffer.byteLength(text, 'utf8'), cut: cutUtf8 };

/** The one line the model sees after cut content. */
export function truncationNote(kept: number, bytes: number, maxBytes: number): string {
  return `[truncated: the tool returned ${bytes} bytes; showing the first ${kept} (maxContentBytes ${maxBytes})]`;
}

/** The content limit of a tool (its `maxContentBytes`, else the default). */
export function maxContentBytesOf(tool: Pick<ToolDefinition, 'maxContentBytes'> | undefined): number {
  return tool?.maxContentBytes ?? DEFAULT_MAX_CONTENT_BYTES;
}

/**
 * Bounds new content at `maxBytes` (UTF-8 bytes of its texts, the note included): a longer one keeps
 * its head, cut at a code point, and ends with a one-line note block. `truncated` is the original size.
 */
export function boundContent(
  content: readonly ContentBlock[],
  maxBytes: number,
): { content: readonly ContentBlock[]; truncated?: { bytes: number } } {
  // The note is measured with the widest numbers it can hold, so the bounded content never exceeds maxBytes.
  const noteBytes = Buffer.byteLength(truncationNote(maxBytes, Number.MAX_SAFE_INTEGER, maxBytes));
  const cut = cutContent(content, maxBytes, utf8, maxBytes - noteBytes);
  if (cut === undefined) return { content };
  const note: ContentBlock = { type: 'text', text: truncationNote(cut.keptSize, cut.total, maxBytes) };
  return { content: [...cut.kept, note], truncated: { bytes: cut.total } };
}

/**
 * A result whose content was just made (rendered, replaced, finalized), bounded at `maxBytes`. Content
 * within the bound keeps the result's earlier `truncated` record: it was made from cut content.
 */
export function boundToolResult(result: ToolResult, maxBytes: number): ToolResult {
  const bounded = boundContent(result.content, maxBytes);
  if (bounded.truncated === undefined) return result;
  const cut = { content: [...bounded.content], truncated: bounded.truncated };
  if (!result.isError) return deepFreezeJson({ ...result, ...cut });
  // A failure's message is its content's text: it is logged too, so it is cut at the same size.
  const message = cutUtf8(result.error.message, maxBytes);
  return deepFreezeJson({ ...result, ...cut, error: { ...result.error, message } });
}
