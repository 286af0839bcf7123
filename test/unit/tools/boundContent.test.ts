// storage.md "Large sessions, bounded lines": every tool's result is bounded (`maxContentBytes`, default 1 MiB).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ContentBlock, JsonValue } from '../../../kernel/index.js';
import { createAgent } from '../../../machines/agent/createAgent.js';
import { createToolRegistry } from '../../../machines/toolCall/createToolRegistry.js';
import { scriptedModel } from '../../../model/index.js';
import { createSeams } from '../../../seams/index.js';
import { checkInvariants, createJsonlStore, openJsonlStore, readJsonlLog } from '../../../session/index.js';
import { boundContent, cutUtf8 } from '../../../tools/boundContent.js';
import { createDemoTools, DEFAULT_MAX_CONTENT_BYTES, defineTool } from '../../../tools/index.js';
import { memoryLogger } from '../agent/helpers.js';

const directory = mkdtempSync(join(tmpdir(), 'seamchart-bound-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;
const freshPath = () => join(directory, `session-${++files}.jsonl`);

// 1, 2, 3 and 4 UTF-8 bytes per character (the last one a surrogate pair in UTF-16).
const MIXED = 'aé€😀';
const bytesOf = (text: string) => Buffer.byteLength(text, 'utf8');
const textsOf = (content: readonly ContentBlock[]) =>
  content.map((block) =>
    block.type === 'tool-call'
      ? block.arguments
      : block.type === 'text' || block.type === 'reasoning'
        ? block.text
        : '',
  );
const sizeOf = (content: readonly ContentBlock[]) => textsOf(content).reduce((n, t) => n + bytesOf(t), 0);

type ToolResultData = { content: ContentBlock[]; isError: boolean; truncated?: { bytes: number } };

describe('cutting text at a byte limit', () => {
  it('never splits a code point: every cut of mixed 1–4 byte text decodes back to a prefix', () => {
    const text = MIXED.repeat(20);
    for (let max = 0; max <= bytesOf(text) + 2; max++) {
      const cut = cutUtf8(text, max);
      expect(bytesOf(cut)).toBeLessThanOrEqual(max);
      expect(text.startsWith(cut)).toBe(true);
      expect(cut).not.toContain('\uFFFD');
      // As long as possible: the next character would not have fitted.
      if (cut.length < text.length) {
        const next = String.fromCodePoint(text.codePointAt(cut.length)!);
        expect(bytesOf(cut) + bytesOf(next)).toBeGreaterThan(max);
      }
    }
  });

  it('bounds several blocks together, the note included, and records the original size', () => {
    const content: ContentBlock[] = [
      { type: 'text', text: 'x'.repeat(600) },
      { type: 'text', text: MIXED.repeat(200) },
      { type: 'text', text: 'never reached' },
    ];
    const original = 600 + 10 * 200 + 13;
    const bounded = boundContent(content, 1024);
    expect(bounded.truncated).toEqual({ bytes: original });
    expect(sizeOf(bounded.content)).toBeLessThanOrEqual(1024);
    const texts = textsOf(bounded.content);
    expect(texts[0]).toBe('x'.repeat(600));
    expect(MIXED.repeat(200).startsWith(texts[1]!)).toBe(true);
    expect(texts).toHaveLength(3);
    expect(texts[2]).toMatch(
      new RegExp(
        `^\\[truncated: the tool returned ${original} bytes; showing the first \\d+ \\(maxContentBytes 1024\\)\\]$`,
      ),
    );
    const shown = Number(/showing the first (\d+)/.exec(texts[2]!)![1]);
    expect(shown).toBe(600 + bytesOf(texts[1]!));
    // Content within the bound is left as it is.
    expect(boundContent(content, original)).toEqual({ content });
  });
});

describe('defineTool({ maxContentBytes })', () => {
  const base = { name: 'big', description: 'big', parameters: z.object({}), execute: () => 'x' };

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '1024', null])(
    'refuses maxContentBytes %s with a TypeError naming the option',
    (maxContentBytes) => {
      const define = () => defineTool({ ...base, maxContentBytes: maxContentBytes as number });
      expect(define).toThrow(TypeError);
      expect(define).toThrow(
        /^Expected the `maxContentBytes` option of tool "big" to be a positive whole number of bytes, got /,
      );
    },
  );

  it('accepts a positive whole number', () => {
    expect(defineTool({ ...base, maxContentBytes: 1 }).maxContentBytes).toBe(1);
  });
});

/** One agent over a JSONL file with the given tools, asking for each call in `calls` in one step. */
async function runCalls(
  tools: ReturnType<typeof createToolRegistry>,
  calls: { name: string; arguments: Record<string, JsonValue> }[],
  register?: (seams: ReturnType<typeof createSeams>) => void,
) {
  const path = freshPath();
  const store = await createJsonlStore(path, { id: 'bound' });
  const seams = createSeams({ logger: memoryLogger() });
  register?.(seams);
  const model = scriptedModel([
    { toolCalls: calls.map((call, index) => ({ id: `c${index + 1}`, ...call })) },
    { text: 'done' },
  ]);
  const agent = createAgent({ seams, tools, model, logger: memoryLogger(), store });
  agent.followup('go');
  await agent.whenIdle();
  await agent.dispose();
  const results = agent.log.events
    .filter((event) => event.type === 'tool/result')
    .map((event) => event.data as ToolResultData);
  return { path, agent, model, results };
}

describe('every tool result is bounded', () => {
  it('a tool returning 10 KiB of multi-byte text with maxContentBytes 1024: cut, noted, recorded; the session reloads', async () => {
    const big = MIXED.repeat(1024);
    const tools = createToolRegistry();
    tools.register(
      defineTool({
        name: 'dump',
        description: 'dump',
        parameters: z.object({}),
        maxContentBytes: 1024,
        execute: () => big,
      }),
    );
    const { path, agent, model, results } = await runCalls(tools, [{ name: 'dump', arguments: {} }]);
    expect(checkInvariants(agent.log.events)).toEqual([]);
    const [result] = results;
    expect(result!.truncated).toEqual({ bytes: 10 * 1024 });
    expect(sizeOf(result!.content)).toBeLessThanOrEqual(1024);
    const [head, note] = textsOf(result!.content);
    expect(head!.length).toBeGreaterThan(0);
    expect(big.startsWith(head!)).toBe(true);
    expect(head).not.toContain('\uFFFD');
    expect(note).toBe(
      `[truncated: the tool returned 10240 bytes; showing the first ${bytesOf(head!)} (maxContentBytes 1024)]`,
    );
    // The model's next request carries the cut content and the one-line note, nothing more.
    const toolMessage = model.requests[1]!.messages.find((message) => message.role === 'tool')!;
    expect(toolMessage.content).toEqual(result!.content);
    // The file loads, with the record, through both loaders.
    const reread = await readJsonlLog(path);
    expect(reread.events).toEqual(agent.log.events);
    const reopened = await openJsonlStore(path);
    expect(reopened.repairs).toEqual([]);
    expect(
      reopened.initialEvents.find((event) => event.type === 'tool/result')?.data as ToolResultData,
    ).toMatchObject({ truncated: { bytes: 10240 } });
    await reopened.close();
  });

  it('without the option a tool keeps 1 MiB; a thrown message is cut with the content at a small bound', async () => {
    const tools = createToolRegistry();
    tools.register(
      defineTool({
        name: 'large',
        description: 'large',
        parameters: z.object({}),
        execute: () => 'é'.repeat(1024 * 1024),
      }),
    );
    tools.register(
      defineTool({
        name: 'noisy',
        description: 'noisy',
        parameters: z.object({}),
        maxContentBytes: 1024,
        execute: () => {
          // Under the 2,000 characters a thrown message keeps, over this tool's 1 KiB.
          throw new Error('é'.repeat(1500));
        },
      }),
    );
    tools.register(
      defineTool({
        name: 'small',
        description: 'small',
        parameters: z.object({}),
        execute: () => 'fits',
      }),
    );
    const { agent, results } = await runCalls(tools, [
      { name: 'large', arguments: {} },
      { name: 'noisy', arguments: {} },
      { name: 'small', arguments: {} },
    ]);
    expect(checkInvariants(agent.log.events)).toEqual([]);
    const [large, noisy, small] = results;
    expect(large).toMatchObject({ isError: false, truncated: { bytes: 2 * 1024 * 1024 } });
    expect(sizeOf(large!.content)).toBeLessThanOrEqual(DEFAULT_MAX_CONTENT_BYTES);
    expect(textsOf(large!.content)[0]).toMatch(/^(é)+$/);
    expect(noisy).toMatchObject({ isError: true, truncated: { bytes: 3000 + 'Error: '.length } });
    expect(sizeOf(noisy!.content)).toBeLessThanOrEqual(1024);
    const message = (noisy as unknown as { error: { message: string } }).error.message;
    expect(bytesOf(message)).toBeLessThanOrEqual(1024);
    expect(message).toMatch(/^(é)+$/);
    // A result within the bound carries no record.
    expect(small).toEqual({
      turn: 1,
      step: 1,
      callId: 'c3',
      content: [{ type: 'text', text: 'fits' }],
      isError: false,
    });
  });

  it('a built-in demo tool (Grep over five 250 KB lines) is cut at the default 1 MiB', async () => {
    const root = join(directory, `demo-${++files}`);
    mkdirSync(root);
    for (let index = 0; index < 5; index++)
      writeFileSync(join(root, `f${index}.txt`), `needle${'y'.repeat(250_000)}\n`);
    const tools = createToolRegistry();
    for (const tool of createDemoTools({ root })) tools.register(tool);
    const { agent, results } = await runCalls(tools, [{ name: 'Grep', arguments: { pattern: 'needle' } }]);
    expect(checkInvariants(agent.log.events)).toEqual([]);
    const [grep] = results;
    expect(grep!.isError).toBe(false);
    // Five lines of `fN.txt:1:needle` + 250,000 bytes, joined by four newlines.
    expect(grep!.truncated).toEqual({ bytes: 5 * (9 + 6 + 250_000) + 4 });
    expect(sizeOf(grep!.content)).toBeLessThanOrEqual(DEFAULT_MAX_CONTENT_BYTES);
  });

  it('content a tools/execute wrapper or a post-execute listener supplies is bounded like the tool’s own', async () => {
    const tools = createToolRegistry();
    for (const name of ['wrapped', 'reviewed'])
      tools.register(
        defineTool({
          name,
          description: name,
          parameters: z.object({}),
          maxContentBytes: 2048,
          execute: () => 'small',
        }),
      );
    const { agent, results } = await runCalls(
      tools,
      [
        { name: 'wrapped', arguments: {} },
        { name: 'reviewed', arguments: {} },
      ],
      (seams) => {
        seams.on('tools/execute', async (exec, next) =>
          exec.name === 'wrapped'
            ? {
                isError: true,
                error: { code: 'TOOL_FAILED', message: 'w'.repeat(5000) },
                content: [{ type: 'text', text: 'w'.repeat(5000) }],
              }
            : next(),
        );
        seams.on('tools/post-execute', async ({ exec }, next) =>
          exec.name === 'reviewed'
            ? { kind: 'accept', content: [{ type: 'text', text: 'r'.repeat(9000) }] }
            : next(),
        );
      },
    );
    expect(checkInvariants(agent.log.events)).toEqual([]);
    const [wrapped, reviewed] = results;
    expect(wrapped).toMatchObject({ isError: true, truncated: { bytes: 5000 } });
    expect(reviewed).toMatchObject({ isError: false, truncated: { bytes: 9000 } });
    for (const result of results) expect(sizeOf(result.content)).toBeLessThanOrEqual(2048);
  });
});
