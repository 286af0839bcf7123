import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkInvariants, readJsonlLog } from '../../session/index.js';
import { buildCli } from './builtCli.js';
import { chunkText, createEditor } from './harness.js';

const notesServer = path.join(import.meta.dirname, 'fixtures', 'notesServer.mjs');
let entry = '';
let dir = '';
beforeAll(async () => {
  entry = await buildCli();
  dir = mkdtempSync(path.join(tmpdir(), 'seamchart-acp-cli-'));
}, 240_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('seamchart acp over a child process', () => {
  it('A07 the built `seamchart acp` runs a whole session over stdio, and every stdout line is a JSON-RPC message', async () => {
    const script = path.join(dir, 'script.json');
    writeFileSync(
      script,
      JSON.stringify([
        { toolCalls: [{ id: 'c1', name: 'mcp__notes__lookup', arguments: { key: 'k7' } }] },
        { text: 'you need milk' },
      ]),
    );
    const pidFile = path.join(dir, 'notes.pid');
    const mcpConfig = path.join(dir, '.mcp.json');
    writeFileSync(
      mcpConfig,
      JSON.stringify({
        mcpServers: {
          notes: { command: process.execPath, args: [notesServer], env: { NOTES_PID_FILE: pidFile } },
        },
      }),
    );
    const sessionsDir = path.join(dir, 'sessions');
    const child = spawn(
      process.execPath,
      [entry, 'acp', '--model', `scripted:${script}`, '--sessions', sessionsDir, '--mcp-config', mcpConfig],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    // The client reads the same bytes the test keeps, so nothing on stdout escapes the check.
    const readable = new ReadableStream<Uint8Array>({
      start(controller) {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString('utf8');
          controller.enqueue(new Uint8Array(chunk));
        });
        child.stdout.on('end', () => controller.close());
      },
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const editor = createEditor(['allow_once']); // default mode: an MCP tool asks first (J05);
    const connection = editor.app.connect(
      acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, readable),
    );
    const init = await connection.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    expect(init.agentInfo?.name).toBe('seamchart');
    const { sessionId } = await connection.agent.request(acp.methods.agent.session.new, {
      cwd: dir,
      mcpServers: [],
    });
    const response = await connection.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'what do I need?' }],
    });
    expect(response).toEqual({ stopReason: 'end_turn' });
    const updates = editor.record.updates.map((n) => n.update);
    expect(chunkText(updates, 'agent_message_chunk')).toBe('you need milk');
    expect(updates).toContainEqual(
      expect.objectContaining({
        sessionUpdate: 'tool_call_update',
        toolCallId: '1.1.c1',
        status: 'completed',
      }),
    );
    const pid = Number(readFileSync(pidFile, 'utf8'));

    // The editor closes stdin: every agent is disposed, the MCP server ends, the process exits 0.
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(stderr).not.toMatch(/Error/);
    const lines = stdout.split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThanOrEqual(5);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(() => process.kill(pid, 0)).toThrow();
    const files = readdirSync(sessionsDir).filter((name) => name.endsWith('.jsonl'));
    expect(files).toEqual([`${sessionId}.jsonl`]);
    const log = await readJsonlLog(path.join(sessionsDir, files[0] ?? ''));
    expect(log.repairs).toEqual([]);
    expect(checkInvariants(log.events)).toEqual([]);
    connection.close();
  }, 60_000);

  it('A07 a bad flag exits 2 with one line on stderr and nothing on stdout', async () => {
    const child = spawn(process.execPath, [entry, 'acp', '--model', 'scripted:/no/such/script.json'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toEqual([
      'seamchart: --model scripted:/no/such/script.json: no such file',
    ]);
  }, 30_000);
});
