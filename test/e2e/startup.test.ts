// J10: the SDKs of the protocols are loaded by the commands that speak them, and only then.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bin = path.resolve(import.meta.dirname, '../../dist/cli/bin.js');
const recorder = path.join(import.meta.dirname, 'fixtures', 'recordModules.mjs');
const notesServer = path.resolve(import.meta.dirname, '../acp/fixtures/notesServer.mjs');
const ACP_SDK = '/node_modules/@agentclientprotocol/sdk/';
const MCP_SDK = '/node_modules/@modelcontextprotocol/sdk/';
let dir = '';
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'seamchart-startup-'));
  writeFileSync(path.join(dir, 'script.json'), JSON.stringify([{ text: 'hi' }, { text: 'hi' }]));
  writeFileSync(
    path.join(dir, 'mcp.json'),
    JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [notesServer] } } }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The URLs of every module `seamchart ARGS` loaded (stdin closed at once). */
async function loadedModules(args: string[]): Promise<string[]> {
  const log = path.join(dir, `modules-${args[0]}-${args.length}.txt`);
  writeFileSync(log, '');
  const running = promisify(execFile)(process.execPath, ['--import', recorder, bin, ...args], {
    cwd: dir,
    env: { ...process.env, SEAMCHART_MODULE_LOG: log },
    timeout: 30_000,
  });
  running.child.stdin?.end();
  await running;
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
}

const script = () => `scripted:${path.join(dir, 'script.json')}`;

describe('J10 start-up loads only what the command needs', () => {
  it.each([['--version'], ['--help'], ['run', 'hi', '--model', 'SCRIPT']])(
    'J10 `seamchart %s …` loads neither the ACP nor the MCP SDK',
    async (...args) => {
      const modules = await loadedModules(args.map((arg) => (arg === 'SCRIPT' ? script() : arg)));
      expect(modules.filter((url) => url.includes(ACP_SDK) || url.includes(MCP_SDK))).toEqual([]);
      // The recorder saw the CLI itself: an empty list would pass anything.
      expect(modules.some((url) => url.endsWith('/dist/cli/main.js'))).toBe(true);
    },
  );

  it('J10 `--version` loads not even the library (commander and the CLI entry only)', async () => {
    const modules = await loadedModules(['--version']);
    expect(
      modules.filter((url) => url.includes('/node_modules/xstate/') || url.endsWith('/dist/index.js')),
    ).toEqual([]);
  });

  it('J10 `run --mcp-config` and `acp` do load their SDK (the recorder sees them)', async () => {
    const withMcp = await loadedModules([
      'run',
      'hi',
      '--model',
      script(),
      '--mcp-config',
      path.join(dir, 'mcp.json'),
    ]);
    expect(withMcp.some((url) => url.includes(MCP_SDK))).toBe(true);
    expect(withMcp.some((url) => url.includes(ACP_SDK))).toBe(false);
    const acp = await loadedModules(['acp', '--model', script(), '--sessions', dir]);
    expect(acp.some((url) => url.includes(ACP_SDK))).toBe(true);
    expect(acp.some((url) => url.includes(MCP_SDK))).toBe(false);
  }, 60_000);
});
