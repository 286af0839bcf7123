// J03 (and J07 for the editor): `seamchart acp`'s turn flags, its working-folder check, session/close and session/list.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkInvariants, readJsonlLog } from '../../session/index.js';
import { connectMcpServers } from '../../tools/mcp/index.js';
import { useModelServers } from '../unit/agent/modelServer.js';
import { isAlive, startAcpChild } from './acpChild.js';
import { useAcpFixtures } from './harness.js';

const notesServer = path.join(import.meta.dirname, 'fixtures', 'notesServer.mjs');
const serveModel = useModelServers();
const fixture = useAcpFixtures();
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'seamchart-acp-cmd-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('J03 seamchart acp flags', () => {
  it('J03 a --cwd that does not exist exits 2 with one line, before speaking the protocol', async () => {
    const editor = startAcpChild([
      '--model',
      'openai',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--cwd',
      path.join(dir, 'nope'),
    ]);
    expect(await editor.exited).toBe(2);
    editor.connection.close();
    expect(editor.stdout()).toBe('');
    expect(editor.stderr().trim().split('\n')).toEqual([
      `seamchart: --cwd ${path.join(dir, 'nope')}: no such directory (it is never created)`,
    ]);
  });

  it('J03 --instructions together with --instructions-file is bad input (exit 2)', async () => {
    const file = path.join(dir, 'i.md');
    writeFileSync(file, 'x');
    const editor = startAcpChild(['--instructions', 'a', '--instructions-file', file]);
    expect(await editor.exited).toBe(2);
    editor.connection.close();
    expect(editor.stderr()).toContain('give --instructions or --instructions-file, not both');
  });

  it("J03 J07 --instructions-file and the session folder's AGENTS.md are the system prompt, --max-steps caps each turn", async () => {
    const server = await serveModel([
      { toolCalls: [{ id: 'c1', name: 'Glob', arguments: '{"pattern":"*.md"}' }] },
    ]);
    const instructions = path.join(dir, 'rules.md');
    writeFileSync(instructions, 'Answer in French.');
    const project = path.join(dir, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'AGENTS.md'), 'Run npm test before you finish.');
    const editor = startAcpChild([
      ...['--model', 'openai', '--base-url', server.baseURL, '--tools', 'demo'],
      ...['--instructions-file', instructions, '--max-steps', '1', '--sessions', dir],
    ]);
    await editor.initialize();
    const { sessionId } = await editor.agent.request(acp.methods.agent.session.new, {
      cwd: project,
      mcpServers: [],
    });
    const response = await editor.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'list the docs' }],
    });
    expect(response).toEqual({ stopReason: 'max_turn_requests' });
    expect(server.received).toHaveLength(1);
    const [system] = (server.received[0]!.body as { messages: { role: string; content: string }[] }).messages;
    expect(system?.role).toBe('system');
    expect(system?.content).toBe(
      `Answer in French.\n\n# AGENTS.md (instructions for ${project})\n\nRun npm test before you finish.`,
    );
    expect(await editor.endStdin()).toBe(0);
    const log = await readJsonlLog(path.join(dir, `${sessionId}.jsonl`));
    expect(checkInvariants(log.events)).toEqual([]);
    expect(log.events.find((e) => e.type === 'turn/end')?.data).toMatchObject({
      reason: { kind: 'max-steps' },
    });
  }, 60_000);
});

describe('J03 session/close and session/list', () => {
  it('J03 session/close disposes the agent and ends its MCP servers; the session can be loaded again', async () => {
    const pidFile = path.join(dir, 'notes.pid');
    const acpFixture = fixture({
      scripts: [[{ text: 'first' }], [{ text: 'again' }]],
      setup: async (_seams, tools, request) => {
        const mcp = await connectMcpServers(request.mcpServers, { cwd: request.cwd });
        mcp.register(tools);
        return { close: () => mcp.close() };
      },
    });
    const initialized = await acpFixture.initialize();
    expect(initialized.agentCapabilities?.sessionCapabilities).toMatchObject({ close: {}, list: {} });
    const sessionId = await acpFixture.newSession(acpFixture.sessionsDir, [
      {
        name: 'notes',
        command: process.execPath,
        args: [notesServer],
        env: [{ name: 'NOTES_PID_FILE', value: pidFile }],
      },
    ]);
    expect(await acpFixture.prompt(sessionId, 'hi')).toEqual({ stopReason: 'end_turn' });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(isAlive(pid)).toBe(true);

    expect(await acpFixture.client.request(acp.methods.agent.session.close, { sessionId })).toEqual({});
    expect(isAlive(pid)).toBe(false);
    await expect(acpFixture.prompt(sessionId, 'still there?')).rejects.toThrow(/not found/i);
    // Closed means released: the file is unlocked, checks clean and loads again.
    const log = await readJsonlLog(path.join(acpFixture.sessionsDir, `${sessionId}.jsonl`));
    expect(log.writer).toBeUndefined();
    expect(checkInvariants(log.events)).toEqual([]);
    await acpFixture.client.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: acpFixture.sessionsDir,
      mcpServers: [],
    });
    expect(await acpFixture.prompt(sessionId, 'again')).toEqual({ stopReason: 'end_turn' });
  }, 30_000);

  it('J03 session/list lists the sessions in the sessions folder, newest first, with their folder and first prompt; cwd filters', async () => {
    const other = path.join(dir, 'other');
    mkdirSync(other);
    const acpFixture = fixture({ scripts: [[{ text: 'a' }], [{ text: 'b' }], [{ text: 'c' }]] });
    await acpFixture.initialize();
    const first = await acpFixture.newSession(dir);
    await acpFixture.prompt(first, 'fix the login form');
    const second = await acpFixture.newSession(other);
    await acpFixture.prompt(second, 'write the changelog');
    const third = await acpFixture.newSession(dir);
    await acpFixture.client.request(acp.methods.agent.session.close, { sessionId: third });

    const all = await acpFixture.client.request(acp.methods.agent.session.list, {});
    expect(all.nextCursor ?? undefined).toBeUndefined();
    expect(new Set(all.sessions.map((s) => s.sessionId))).toEqual(new Set([first, second, third]));
    expect(all.sessions.find((s) => s.sessionId === first)).toMatchObject({
      cwd: dir,
      title: 'fix the login form',
    });
    expect(all.sessions.find((s) => s.sessionId === second)).toMatchObject({
      cwd: other,
      title: 'write the changelog',
    });
    const times = all.sessions.map((s) => s.updatedAt ?? '');
    expect(times).toEqual([...times].sort().reverse());

    const here = await acpFixture.client.request(acp.methods.agent.session.list, { cwd: dir });
    expect(here.sessions.map((s) => s.sessionId).sort()).toEqual([first, third].sort());
  });
});
