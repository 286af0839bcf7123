// storage.md: tool results are bounded for every tool, an MCP server's too (default 1 MiB).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.js';
import type { ContentBlock } from '../../kernel/index.js';
import { checkInvariants, readJsonlLog } from '../../session/index.js';
import { captureIO } from './support/captureIO.js';
import { mcpRun } from './support/mcpRun.js';

const dumpServer = path.join(import.meta.dirname, 'fixtures', 'dumpServer.mjs');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'seamchart-mcp-bound-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('an MCP tool result over the default bound', () => {
  it('is cut at 1 MiB: the log records the original 3 MiB and the session checks clean', async () => {
    const chars = 1.5 * 1024 * 1024;
    const run = mcpRun(
      dir,
      [{ toolCalls: [{ id: 'c1', name: 'mcp__dump__dump', arguments: { chars } }] }, { text: 'done' }],
      { dump: { command: process.execPath, args: [dumpServer] } },
    );
    const session = path.join(dir, 's.jsonl');
    const code = await main(run.args('dump', session, { json: true }), captureIO());
    expect(code).toBe(0);
    const { events } = await readJsonlLog(session);
    expect(checkInvariants(events)).toEqual([]);
    const result = events.find((event) => event.type === 'tool/result')?.data as {
      content: ContentBlock[];
      truncated?: { bytes: number };
    };
    expect(result.truncated).toEqual({ bytes: 2 * chars });
    const texts = result.content.map((block) =>
      block.type === 'text' || block.type === 'reasoning' ? block.text : '',
    );
    expect(texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0)).toBeLessThanOrEqual(1024 * 1024);
    expect(texts[0]).toMatch(/^(é)+$/);
    expect(texts.at(-1)).toMatch(
      /^\[truncated: the tool returned 3145728 bytes; showing the first \d+ \(maxContentBytes 1048576\)\]$/,
    );

    // The transcript says the output was cut (the note itself is past the summary's first lines).
    const shown = captureIO();
    const again = path.join(dir, 't.jsonl');
    expect(await main(run.args('dump', again), shown)).toBe(0);
    expect(shown.out()).toContain('(output cut: the tool returned 3145728 bytes)');
  }, 30_000);
});
