import * as acp from '@agentclientprotocol/sdk';
import type { ContentBlock } from '../../kernel/index.js';

/**
 * An ACP prompt as seamchart content: text stays text, a resource link becomes a text line naming
 * the resource; images, audio and embedded resources are refused (the capabilities say so).
 * @param prompt the `session/prompt` blocks
 */
export function toPromptContent(prompt: readonly acp.ContentBlock[]): ContentBlock[] {
  return prompt.map((block, index): ContentBlock => {
    if (block.type === 'text') return { type: 'text', text: block.text };
    if (block.type === 'resource_link') {
      const label = block.title ?? block.name;
      return { type: 'text', text: `[resource] ${label}: ${block.uri}` };
    }
    throw acp.RequestError.invalidParams(
      { index, type: block.type },
      `seamchart accepts text and resource_link prompt blocks; block ${index} is "${block.type}" ` +
        '(promptCapabilities.image, audio and embeddedContext are false)',
    );
  });
}

/** The text of seamchart content blocks as ACP text blocks (tool-call blocks are shown as tool calls). */
export function toAcpText(content: readonly ContentBlock[], type: 'text' | 'reasoning'): acp.ContentBlock[] {
  return content.flatMap((block) =>
    block.type === type && block.text !== '' ? [{ type: 'text' as const, text: block.text }] : [],
  );
}
