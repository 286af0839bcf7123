import type { ContentBlock } from '../kernel/index.js';

/** How a cap counts a text, and how it cuts one to at most `max` of its units. */
export interface TextMeasure {
  size(text: string): number;
  cut(text: string, max: number): string;
}

/** What `cutContent` kept of content over its limit. */
export interface CutContent {
  readonly kept: ContentBlock[];
  /** The size of the whole content, in the measure's units. */
  readonly total: number;
  /** The size of what was kept. */
  readonly keptSize: number;
}

/**
 * Cuts content blocks to `limit` units together: blocks are kept in order while they fit, a text or
 * reasoning block that crosses the limit is cut, a tool-call block that does not fit is dropped, the
 * rest goes. `undefined` when the content is within the limit.
 */
export function cutContent(
  content: readonly ContentBlock[],
  limit: number,
  measure: TextMeasure,
  budget: number = limit,
): CutContent | undefined {
  const sizes = content.map((block) => measure.size(measuredText(block)));
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (total <= limit) return undefined;
  const kept: ContentBlock[] = [];
  let room = Math.max(0, budget);
  for (const [index, block] of content.entries()) {
    const size = sizes[index]!;
    if (size <= room) {
      kept.push(block);
      room -= size;
      continue;
    }
    if ((block.type === 'text' || block.type === 'reasoning') && room > 0) {
      const text = measure.cut(block.text, room);
      if (text !== '') kept.push({ ...block, text });
      room -= measure.size(text);
    }
    break;
  }
  return { kept, total, keptSize: Math.max(0, budget) - room };
}

// What counts toward the limit: texts and call arguments; an image is kept whole (its data is no text), a link by its URI.
function measuredText(block: ContentBlock): string {
  switch (block.type) {
    case 'tool-call':
      return block.arguments;
    case 'image':
      return '';
    case 'resource-link':
      return block.uri;
    default:
      return block.text;
  }
}
