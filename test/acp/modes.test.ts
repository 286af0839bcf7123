// J05: Claude Code's permission modes as ACP session modes, deciding the next call.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeCodeHooks, parsePermissionMode } from '../../bridges/index.js';
import { createDemoTools } from '../../tools/index.js';
import { useAcpFixtures } from './harness.js';

const createFixture = useAcpFixtures();
const MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions'].map((id) => ({ id, name: id }));
let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(path.join(tmpdir(), 'seamchart-modes-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

const write = (id: string, file: string) => ({
  toolCalls: [{ id, name: 'Write', arguments: { file_path: path.join(cwd, file), content: 'x' } }],
});

/** `{ status, text }` of each call's final update. */
function finals(updates: readonly acp.SessionUpdate[]) {
  return updates.flatMap((update) => {
    if (
      update.sessionUpdate !== 'tool_call_update' ||
      (update.status !== 'completed' && update.status !== 'failed')
    )
      return [];
    const first = update.content?.[0];
    return [
      {
        status: update.status,
        text: first?.type === 'content' && first.content.type === 'text' ? first.content.text : '',
      },
    ];
  });
}

describe('J05 session modes', () => {
  it('J05 default, acceptEdits, plan and bypassPermissions are offered, set with session/set_mode, announced, and decide the next call', async () => {
    const fixture = createFixture({
      scripts: [
        [
          write('w1', 'a.txt'),
          { text: 'asked' },
          write('w2', 'b.txt'),
          { text: 'accepted' },
          write('w3', 'c.txt'),
          { text: 'planned' },
          { toolCalls: [{ id: 'b1', name: 'Bash', arguments: { command: 'touch d.txt' } }] },
          { text: 'bypassed' },
        ],
      ],
      permissions: ['reject_once'],
      serve: { modes: { available: MODES, initial: 'default' } },
      setup: async (seams, tools, request) => {
        for (const tool of createDemoTools({ root: request.cwd })) tools.register(tool);
        seams.use(
          await claudeCodeHooks({
            settingsFiles: [],
            permissionMode: () => parsePermissionMode(request.mode() ?? '') ?? 'default',
          }),
        );
      },
    });
    await fixture.initialize();
    const created = await fixture.client.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    expect(created.modes).toEqual({ currentModeId: 'default', availableModes: MODES });
    const { sessionId } = created;
    const setMode = (modeId: string) =>
      fixture.client.request(acp.methods.agent.session.setMode, { sessionId, modeId });

    // default: an edit asks (the editor rejects it).
    expect(await fixture.prompt(sessionId, 'write a')).toEqual({ stopReason: 'end_turn' });
    expect(fixture.record.permissions).toHaveLength(1);
    expect(existsSync(path.join(cwd, 'a.txt'))).toBe(false);

    // acceptEdits: the edit inside the folder runs without asking.
    expect(await setMode('acceptEdits')).toEqual({});
    expect(await fixture.prompt(sessionId, 'write b')).toEqual({ stopReason: 'end_turn' });
    expect(fixture.record.permissions).toHaveLength(1);
    expect(existsSync(path.join(cwd, 'b.txt'))).toBe(true);

    // plan: the edit is refused without asking.
    await setMode('plan');
    expect(await fixture.prompt(sessionId, 'write c')).toEqual({ stopReason: 'end_turn' });
    expect(fixture.record.permissions).toHaveLength(1);
    expect(existsSync(path.join(cwd, 'c.txt'))).toBe(false);

    // bypassPermissions: a command that would ask runs.
    await setMode('bypassPermissions');
    expect(await fixture.prompt(sessionId, 'touch d')).toEqual({ stopReason: 'end_turn' });
    expect(fixture.record.permissions).toHaveLength(1);
    expect(existsSync(path.join(cwd, 'd.txt'))).toBe(true);

    const updates = fixture.updatesOf(sessionId);
    expect(updates.filter((u) => u.sessionUpdate === 'current_mode_update')).toEqual([
      { sessionUpdate: 'current_mode_update', currentModeId: 'acceptEdits' },
      { sessionUpdate: 'current_mode_update', currentModeId: 'plan' },
      { sessionUpdate: 'current_mode_update', currentModeId: 'bypassPermissions' },
    ]);
    expect(finals(updates).map((f) => f.status)).toEqual(['failed', 'completed', 'failed', 'completed']);
    expect(finals(updates)[2]?.text).toMatch(/plan mode/);

    await expect(setMode('yolo')).rejects.toThrow(
      /Expected modeId to be one of default, acceptEdits, plan, bypassPermissions, got "yolo"/,
    );
  }, 30_000);

  it('J05 the mode a session was left in is kept: session/load answers it and the next call is decided in it', async () => {
    const fixture = createFixture({
      scripts: [[{ text: 'set' }], [write('w1', 'a.txt'), { text: 'still planning' }], [], []],
      serve: { modes: { available: MODES, initial: 'default' } },
      setup: async (seams, tools, request) => {
        for (const tool of createDemoTools({ root: request.cwd })) tools.register(tool);
        seams.use(
          await claudeCodeHooks({
            settingsFiles: [],
            permissionMode: () => parsePermissionMode(request.mode() ?? '') ?? 'default',
          }),
        );
      },
    });
    await fixture.initialize();
    const { sessionId } = await fixture.client.request(acp.methods.agent.session.new, {
      cwd,
      mcpServers: [],
    });
    await fixture.client.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'plan' });
    expect(await fixture.prompt(sessionId, 'hello')).toEqual({ stopReason: 'end_turn' });
    await fixture.client.request(acp.methods.agent.session.close, { sessionId });

    const loaded = await fixture.client.request(acp.methods.agent.session.load, {
      sessionId,
      cwd,
      mcpServers: [],
    });
    expect(loaded.modes).toEqual({ currentModeId: 'plan', availableModes: MODES });
    // plan refuses the edit without asking the editor.
    expect(await fixture.prompt(sessionId, 'write a')).toEqual({ stopReason: 'end_turn' });
    expect(fixture.record.permissions).toHaveLength(0);
    expect(existsSync(path.join(cwd, 'a.txt'))).toBe(false);
    expect(finals(fixture.updatesOf(sessionId)).at(-1)).toMatchObject({
      status: 'failed',
      text: expect.stringMatching(/plan mode/),
    });

    // A session that never changed mode loads in the initial one.
    const other = await fixture.client.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    await fixture.client.request(acp.methods.agent.session.close, { sessionId: other.sessionId });
    const reopened = await fixture.client.request(acp.methods.agent.session.load, {
      sessionId: other.sessionId,
      cwd,
      mcpServers: [],
    });
    expect(reopened.modes?.currentModeId).toBe('default');
  }, 30_000);
});
