import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeHooks } from '../../bridges/index.js';
import { connectMcpServers } from '../../tools/mcp/index.js';
import { until, useAcpFixtures } from './harness.js';

const notesServer = path.join(import.meta.dirname, 'fixtures', 'notesServer.mjs');
const createFixture = useAcpFixtures();

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('MCP servers in ACP sessions', () => {
  it('A08 a stdio MCP server from session/new is offered as mcp__<server>__<tool>, runs, and a mcp__.* PreToolUse hook sees it; a server that fails to start is reported', async () => {
    const offered: string[][] = [];
    let pidFile = '';
    const fixture = createFixture({
      scripts: [
        [
          { toolCalls: [{ id: 'c1', name: 'mcp__notes__lookup', arguments: { key: 'k1' } }] },
          { text: 'you need milk' },
        ],
      ],
      setup: async (seams, tools, request) => {
        const hookLog = path.join(request.cwd, 'pretooluse.txt');
        seams.use(
          await claudeCodeHooks({
            hooks: {
              PreToolUse: [
                {
                  matcher: 'mcp__.*',
                  hooks: [{ type: 'command', command: `cat >> '${hookLog}'; echo >> '${hookLog}'` }],
                },
              ],
            },
          }),
        );
        const mcp = await connectMcpServers(request.mcpServers, { cwd: request.cwd });
        for (const tool of mcp.tools) tools.register(tool);
        seams.on('agent/prompt-submit', (_ctx, next) => {
          offered.push(tools.schemas().map((schema) => schema.name));
          return next();
        });
        return { notices: mcp.failures.map((failure) => failure.message), close: () => mcp.close() };
      },
    });
    pidFile = path.join(fixture.sessionsDir, 'notes.pid');
    await fixture.initialize();
    const sessionId = await fixture.newSession(fixture.sessionsDir, [
      {
        name: 'notes',
        command: process.execPath,
        args: [notesServer],
        env: [{ name: 'NOTES_PID_FILE', value: pidFile }],
      },
      { name: 'broken', command: path.join(fixture.sessionsDir, 'no-such-server'), args: [], env: [] },
    ]);
    expect(await fixture.prompt(sessionId, 'what do I need?')).toEqual({ stopReason: 'end_turn' });

    expect(offered[0]).toEqual(['echo', 'fail', 'mcp__notes__explode', 'mcp__notes__lookup']);
    const updates = fixture.updatesOf(sessionId);
    // The failed server was reported to the editor as a message.
    expect(JSON.stringify(updates)).toContain('MCP server \\"broken\\"');
    expect(updates).toContainEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: '1.1.c1',
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: 'note k1: buy milk' } }],
    });
    const hookPayloads = readFileSync(path.join(fixture.sessionsDir, 'pretooluse.txt'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { tool_name: string; tool_input: unknown });
    expect(hookPayloads).toMatchObject([{ tool_name: 'mcp__notes__lookup', tool_input: { key: 'k1' } }]);

    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(isAlive(pid)).toBe(true);
    await fixture.close();
    // The session's MCP server ended with the session.
    expect(isAlive(pid)).toBe(false);
    await fixture.expectCleanSessions();
  });

  it('A08 an MCP server killed mid-session fails its calls with a clear error; the session keeps answering', async () => {
    const createdPid: { file: string } = { file: '' };
    const fixture = createFixture({
      scripts: [
        [
          { toolCalls: [{ id: 'c1', name: 'mcp__notes__lookup', arguments: { key: 'a' } }] },
          { text: 'first' },
          { toolCalls: [{ id: 'c1', name: 'mcp__notes__lookup', arguments: { key: 'b' } }] },
          { text: 'second' },
        ],
      ],
      setup: async (_seams, tools, request) => {
        const mcp = await connectMcpServers(request.mcpServers, { cwd: request.cwd });
        for (const tool of mcp.tools) tools.register(tool);
        return { close: () => mcp.close() };
      },
    });
    createdPid.file = path.join(fixture.sessionsDir, 'notes.pid');
    await fixture.initialize();
    const sessionId = await fixture.newSession(fixture.sessionsDir, [
      {
        name: 'notes',
        command: process.execPath,
        args: [notesServer],
        env: [{ name: 'NOTES_PID_FILE', value: createdPid.file }],
      },
    ]);
    expect(await fixture.prompt(sessionId, 'one')).toEqual({ stopReason: 'end_turn' });
    const pid = Number(readFileSync(createdPid.file, 'utf8'));
    process.kill(pid, 'SIGKILL');
    await until(() => !isAlive(pid));
    expect(await fixture.prompt(sessionId, 'two')).toEqual({ stopReason: 'end_turn' });
    const failed = fixture
      .updatesOf(sessionId)
      .filter(
        (u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === '2.1.c1' && u.status === 'failed',
      );
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      content: [
        {
          type: 'content',
          content: { type: 'text', text: 'Error: MCP server "notes" could not run lookup: Not connected' },
        },
      ],
    });
  });

  it('A08 an MCP tool that reports isError fails the call with its text', async () => {
    const mcp = await connectMcpServers([{ name: 'notes', command: process.execPath, args: [notesServer] }]);
    try {
      const explode = mcp.tools.find((tool) => tool.name === 'mcp__notes__explode');
      const { createToolRegistry } = await import('../../machines/index.js');
      const { createSeams } = await import('../../seams/index.js');
      const tools = createToolRegistry();
      if (explode) tools.register(explode);
      const result = await tools.execute(
        { name: 'mcp__notes__explode', arguments: '{}' },
        { seams: createSeams() },
      );
      expect(result.isError && result.error).toMatchObject({
        code: 'TOOL_FAILED',
        message: expect.stringContaining('the notebook is wet'),
      });
    } finally {
      await mcp.close();
    }
  });
});
