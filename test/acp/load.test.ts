import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { readJsonlLog } from '../../session/index.js';
import { chunkText, useAcpFixtures } from './harness.js';

const createFixture = useAcpFixtures();

describe('ACP session/load', () => {
  it('A06 session/load replays the history as updates before its response, and turn numbers continue', async () => {
    const first = createFixture({
      scripts: [
        [
          { text: 'let me check', toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'ping' } }] },
          { text: 'pong it is' },
        ],
      ],
    });
    await first.initialize();
    const sessionId = await first.newSession();
    expect(await first.prompt(sessionId, 'ping please')).toEqual({ stopReason: 'end_turn' });
    await first.close();

    const second = createFixture({ scripts: [[{ text: 'still here' }]], sessionsDir: first.sessionsDir });
    await second.initialize();
    await second.client.request(acp.methods.agent.session.load, {
      sessionId,
      cwd: first.sessionsDir,
      mcpServers: [],
    });
    // Everything was replayed before the response arrived.
    const replayed = second.updatesOf(sessionId);
    expect(replayed.map((u) => u.sessionUpdate)).toEqual([
      'user_message_chunk',
      'agent_message_chunk',
      'tool_call',
      'tool_call_update',
      'agent_message_chunk',
    ]);
    expect(chunkText(replayed, 'user_message_chunk')).toBe('ping please');
    expect(replayed[2]).toMatchObject({ toolCallId: '1.1.c1', title: 'echo: ping', kind: 'read' });
    expect(replayed[3]).toMatchObject({ toolCallId: '1.1.c1', status: 'completed' });

    expect(await second.prompt(sessionId, 'again')).toEqual({ stopReason: 'end_turn' });
    expect(chunkText(second.updatesOf(sessionId).slice(replayed.length), 'agent_message_chunk')).toBe(
      'still here',
    );
    await second.close();
    const { events } = await readJsonlLog(path.join(first.sessionsDir, `${sessionId}.jsonl`));
    const turns = events.filter((e) => e.type === 'turn/start').map((e) => (e.data as { turn: number }).turn);
    expect(turns).toEqual([1, 2]);
    await second.expectCleanSessions();
  });

  it('A06 a load from another cwd, of an unknown session or of an open one is refused', async () => {
    const fixture = createFixture({ scripts: [[{ text: 'hi' }]] });
    await fixture.initialize();
    const sessionId = await fixture.newSession();
    const load = (id: string, cwd: string) =>
      fixture.client.request(acp.methods.agent.session.load, { sessionId: id, cwd, mcpServers: [] });
    await expect(load(sessionId, fixture.sessionsDir)).rejects.toThrow(/already open/);
    await fixture.close();

    const other = createFixture({ scripts: [], sessionsDir: fixture.sessionsDir });
    await other.initialize();
    const elsewhere = path.join(fixture.sessionsDir, 'elsewhere');
    mkdirSync(elsewhere);
    await expect(
      other.client.request(acp.methods.agent.session.load, { sessionId, cwd: elsewhere, mcpServers: [] }),
    ).rejects.toThrow(/was started in/);
    await expect(
      other.client.request(acp.methods.agent.session.load, {
        sessionId: '00000000-0000-4000-8000-000000000000',
        cwd: fixture.sessionsDir,
        mcpServers: [],
      }),
    ).rejects.toMatchObject({ code: -32002 });
  });

  it('A09 a session/load whose sessionId contains ../ is refused without touching the file system', async () => {
    const fixture = createFixture({ scripts: [] });
    const sessionsDir = path.join(fixture.sessionsDir, 'sessions');
    const target = path.join(fixture.sessionsDir, 'victim.jsonl');
    const original =
      '{"seamchart":1,"sessionId":"victim","created":"2026-01-01T00:00:00.000Z","cwd":"/"}\n{"torn":';
    writeFileSync(target, original);
    const guarded = createFixture({ scripts: [], sessionsDir });
    await guarded.initialize();
    for (const sessionId of ['../victim', '..%2Fvictim', 'victim', '/etc/passwd']) {
      const failure = await guarded.client
        .request(acp.methods.agent.session.load, { sessionId, cwd: '/', mcpServers: [] })
        .catch((error: unknown) => error);
      expect(failure).toMatchObject({
        code: -32602,
        message: expect.stringContaining('seamchart session id'),
      });
    }
    // The torn file next door was neither repaired nor backed up, and the sessions directory was not created.
    expect(readFileSync(target, 'utf8')).toBe(original);
    expect(existsSync(`${target}.bak`)).toBe(false);
    expect(existsSync(sessionsDir)).toBe(false);
  });
});
