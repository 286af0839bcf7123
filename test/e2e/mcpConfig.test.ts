import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.js';
import { checkInvariants, readJsonlLog } from '../../session/index.js';
import { captureIO } from './support/captureIO.js';

const notesServer = path.join(import.meta.dirname, '..', 'acp', 'fixtures', 'notesServer.mjs');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'seamchart-mcp-run-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('seamchart run --mcp-config', () => {
  it("runs an MCP server's tool from a .mcp.json as mcp__<server>__<tool>; a broken server is reported and the run goes on", async () => {
    const script = path.join(dir, 'script.json');
    writeFileSync(
      script,
      JSON.stringify([
        { toolCalls: [{ id: 'c1', name: 'mcp__notes__lookup', arguments: { key: 'k2' } }] },
        { text: 'done' },
      ]),
    );
    const config = path.join(dir, '.mcp.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          notes: { command: process.execPath, args: [notesServer] },
          broken: { command: path.join(dir, 'missing-binary') },
        },
      }),
    );
    const session = path.join(dir, 's.jsonl');
    const io = captureIO();
    const code = await main(
      [
        'run',
        'what is k2?',
        '--model',
        `scripted:${script}`,
        '--mcp-config',
        config,
        '--session',
        session,
        '--json',
      ],
      io,
    );
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
    const config = path.join(dir, '.mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { web: { type: 'http', url: 'http://x' } } }));
    const script = path.join(dir, 'script.json');
    writeFileSync(script, JSON.stringify([{ text: 'never' }]));
    const session = path.join(dir, 's.jsonl');
    const io = captureIO();
    const code = await main(
      ['run', 'hi', '--model', `scripted:${script}`, '--mcp-config', config, '--session', session],
      io,
    );
    expect(code).toBe(2);
    expect(io.err().trim().split('\n')).toEqual([
      `seamchart: --mcp-config ${config}: MCP server "web" uses transport "http"; only stdio servers are supported`,
    ]);
    expect(existsSync(session)).toBe(false);
  });
});
