import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.js';
import { checkInvariants, readJsonlLog } from '../../session/index.js';
import { captureIO } from './support/captureIO.js';
import { mcpRun } from './support/mcpRun.js';

const notesServer = path.join(import.meta.dirname, '..', 'acp', 'fixtures', 'notesServer.mjs');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'seamchart-mcp-run-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('seamchart run --mcp-config', () => {
  it("runs an MCP server's tool from a .mcp.json as mcp__<server>__<tool>; a broken server is reported and the run goes on", async () => {
    const run = mcpRun(
      dir,
      [{ toolCalls: [{ id: 'c1', name: 'mcp__notes__lookup', arguments: { key: 'k2' } }] }, { text: 'done' }],
      {
        notes: { command: process.execPath, args: [notesServer] },
        broken: { command: path.join(dir, 'missing-binary') },
      },
    );
    const session = path.join(dir, 's.jsonl');
    const io = captureIO();
    const code = await main(run.args('what is k2?', session, { json: true }), io);
    expect(code).toBe(0);
    expect(io.err()).toContain('MCP server "broken"');
    const { events } = await readJsonlLog(session);
    expect(checkInvariants(events)).toEqual([]);
    expect(events.find((e) => e.type === 'tool/result')?.data).toMatchObject({
      isError: false,
      content: [{ type: 'text', text: 'note k2: buy milk' }],
    });
  });

  it('a malformed .mcp.json is bad input: exit 2, one line, no session written', async () => {
    const run = mcpRun(dir, [{ text: 'never' }], { web: { type: 'http', url: 'http://x' } });
    const session = path.join(dir, 's.jsonl');
    const io = captureIO();
    const code = await main(run.args('hi', session), io);
    expect(code).toBe(2);
    expect(io.err().trim().split('\n')).toEqual([
      `seamchart: --mcp-config ${run.config}: MCP server "web" uses transport "http"; only stdio servers are supported`,
    ]);
    expect(existsSync(session)).toBe(false);
  });
});
