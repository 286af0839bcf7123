import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkInvariants, readJsonlLog } from '../../session/index.js';
import { bin, isAlive, startAcpChild } from './acpChild.js';
import { chunkText } from './harness.js';

const notesServer = path.join(import.meta.dirname, 'fixtures', 'notesServer.mjs');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'seamchart-mcp-collide-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A `.mcp.json` of notes servers under the given names, each writing its pid to `<name>.pid`. */
function notesConfig(...names: string[]): string {
  const file = path.join(dir, 'mcp.json');
  const mcpServers = Object.fromEntries(
    names.map((name) => [
      name,
      {
        command: process.execPath,
        args: [notesServer],
        env: { NOTES_PID_FILE: path.join(dir, `${name}.pid`) },
      },
    ]),
  );
  writeFileSync(file, JSON.stringify({ mcpServers }));
  return file;
}

function pidFiles(): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.pid'));
}

function script(steps: unknown[]): string {
  const file = path.join(dir, 'script.json');
  writeFileSync(file, JSON.stringify(steps));
  return file;
}

describe('J01 MCP servers whose tool names collide', () => {
  it('J01 within one --mcp-config (my.fs and my_fs), `run` is bad input: exit 2, one line, nothing written, no server started', async () => {
    const config = notesConfig('my.fs', 'my_fs');
    const session = path.join(dir, 's.jsonl');
    const failure = await promisify(execFile)(
      process.execPath,
      [
        bin,
        'run',
        'hi',
        '--model',
        `scripted:${script([{ text: 'never' }])}`,
        '--mcp-config',
        config,
        '--session',
        session,
      ],
      { timeout: 20_000 },
    ).then(
      () => undefined,
      (error: { code?: number; killed?: boolean; stderr?: string; stdout?: string }) => error,
    );
    expect(failure?.killed).toBe(false);
    expect(failure?.code).toBe(2);
    expect(failure?.stdout).toBe('');
    expect(failure?.stderr?.trim().split('\n')).toEqual([
      `seamchart: --mcp-config ${config}: MCP servers "my.fs" and "my_fs" would both name their tools mcp__my_fs__*; rename one`,
    ]);
    expect(existsSync(session)).toBe(false);
    expect(pidFiles()).toEqual([]);
  });

  it('J01 within one --mcp-config, `acp` exits 2 before answering anything', async () => {
    const config = notesConfig('my.fs', 'my_fs');
    const editor = startAcpChild([
      '--model',
      `scripted:${script([])}`,
      '--sessions',
      dir,
      '--mcp-config',
      config,
    ]);
    expect(await editor.exited).toBe(2);
    editor.connection.close();
    expect(editor.stdout()).toBe('');
    expect(editor.stderr()).toContain(
      'MCP servers "my.fs" and "my_fs" would both name their tools mcp__my_fs__*',
    );
    expect(pidFiles()).toEqual([]);
  });

  it("J01 across sources the editor's server wins: the collision is an update, the --mcp-config one never runs, the session works; stdin EOF exits at once and no server is left", async () => {
    const config = notesConfig('notes');
    const steps = [
      { toolCalls: [{ id: 'c1', name: 'mcp__notes__lookup', arguments: { key: 'k1' } }] },
      { text: 'milk' },
    ];
    const sessions = path.join(dir, 'sessions');
    // The session starts in the default mode, where an MCP tool asks first (J05): the editor allows it.
    const editor = startAcpChild(
      ['--model', `scripted:${script(steps)}`, '--sessions', sessions, '--mcp-config', config],
      { permissions: ['allow_once'] },
    );
    await editor.initialize();
    const editorPidFile = path.join(dir, 'editor.pid');
    const { sessionId } = await editor.agent.request(acp.methods.agent.session.new, {
      cwd: dir,
      mcpServers: [
        {
          name: 'notes',
          command: process.execPath,
          args: [notesServer],
          env: [{ name: 'NOTES_PID_FILE', value: editorPidFile }],
        },
      ],
    });
    const response = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'what do I need?' }],
    });
    expect(response).toEqual({ stopReason: 'end_turn' });
    const updates = editor.updatesOf(sessionId);
    expect(chunkText(updates, 'agent_message_chunk')).toContain(
      `MCP server "notes" of --mcp-config is not started: the editor's server of that name is used instead`,
    );
    expect(updates).toContainEqual(
      expect.objectContaining({
        sessionUpdate: 'tool_call_update',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: 'note k1: buy milk' } }],
      }),
    );
    expect(pidFiles()).toEqual(['editor.pid']);
    const pid = Number(readFileSync(editorPidFile, 'utf8'));
    expect(isAlive(pid)).toBe(true);

    expect(await editor.endStdin()).toBe(0);
    expect(isAlive(pid)).toBe(false);
    const log = await readJsonlLog(path.join(sessions, `${sessionId}.jsonl`));
    expect(log.repairs).toEqual([]);
    expect(checkInvariants(log.events)).toEqual([]);
  }, 60_000);

  it("J01 within the editor's own mcpServers, session/new fails with the reason, leaves no file and no server; stdin EOF exits at once", async () => {
    const sessions = path.join(dir, 'sessions');
    const editor = startAcpChild(['--model', `scripted:${script([])}`, '--sessions', sessions]);
    await editor.initialize();
    const server = (name: string): acp.McpServer => ({
      name,
      command: process.execPath,
      args: [notesServer],
      env: [{ name: 'NOTES_PID_FILE', value: path.join(dir, `${name}.pid`) }],
    });
    await expect(
      editor.agent.request(acp.methods.agent.session.new, {
        cwd: dir,
        mcpServers: [server('my.fs'), server('my_fs')],
      }),
    ).rejects.toThrow(/MCP servers "my\.fs" and "my_fs" would both name their tools mcp__my_fs__\*/);
    expect(readdirSync(sessions).filter((name) => name.endsWith('.jsonl'))).toEqual([]);
    expect(pidFiles()).toEqual([]);
    expect(await editor.endStdin()).toBe(0);
  }, 60_000);
});
