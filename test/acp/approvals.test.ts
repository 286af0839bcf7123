// approvals.md "Where people answer", ACP: an editor that goes away while a permission question is open leaves the
// session suspended; the next editor that loads it is asked again, and its answer resumes the turn.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkInvariants, formatViolation, readJsonlLog } from '../../session/index.js';
import { startAcpChild } from './acpChild.js';
import { chunkText, until } from './harness.js';

let dir: string;
const editors: ReturnType<typeof startAcpChild>[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'seamchart-acp-approvals-'));
});
afterEach(async () => {
  for (const editor of editors.splice(0)) if (editor.child.exitCode === null) await editor.endStdin();
  rmSync(dir, { recursive: true, force: true });
});

/** A promise and its resolver. */
function later<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('V06 ACP approvals outlive the editor', () => {
  it('V06 stdin closed while session/request_permission is open suspends the session; session/load in a new process replays and re-sends the request; answering it resumes the turn, whose updates reach the new connection, and a prompt sent meanwhile runs after it and ends end_turn', async () => {
    const project = path.join(dir, 'project');
    const sessions = path.join(dir, 'sessions');
    mkdirSync(project);
    mkdirSync(sessions);
    const hook = path.join(dir, 'hook.sh');
    writeFileSync(
      hook,
      'cat > /dev/null\necho \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"writing needs a human"}}\'\n',
    );
    const settings = path.join(dir, 'settings.json');
    writeFileSync(
      settings,
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `sh ${hook}` }] }] },
      }),
    );
    const script = path.join(dir, 'script.json');
    const flags = (): string[] => [
      ...['--model', `scripted:${script}`, '--tools', 'demo'],
      ...['--claude-settings', settings, '--sessions', sessions],
    ];

    // 1. The first editor is asked, and goes away without answering.
    writeFileSync(
      script,
      JSON.stringify([
        {
          text: 'writing it',
          toolCalls: [{ id: 'c1', name: 'Bash', arguments: { command: 'echo ran > proof.txt' } }],
        },
      ]),
    );
    const firstAsk = later<acp.RequestPermissionRequest>();
    const first = startAcpChild(flags(), {
      onPermission: (params) => {
        firstAsk.resolve(params);
        return new Promise(() => {});
      },
    });
    editors.push(first);
    await first.initialize();
    const { sessionId } = await first.agent.request(acp.methods.agent.session.new, {
      cwd: project,
      mcpServers: [],
    });
    const unanswered = first.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'write the proof' }],
    });
    unanswered.catch(() => {});
    const asked = await firstAsk.promise;
    expect(asked.toolCall).toMatchObject({ toolCallId: '1.1.c1' });
    expect(await first.endStdin()).toBe(0);

    const file = path.join(sessions, `${sessionId}.jsonl`);
    const suspended = await readJsonlLog(file);
    expect(suspended.repairs).toEqual([]);
    expect(suspended.events.filter((e) => e.type === 'turn/suspended').map((e) => e.data)).toEqual([
      { turn: 1, step: 1, pending: ['a1'], held: [], notStarted: [], contexts: [] },
    ]);
    expect(suspended.events.some((e) => e.type === 'turn/end')).toBe(false);
    expect(checkInvariants(suspended.events).map(formatViolation)).toEqual([]);
    expect(existsSync(path.join(project, 'proof.txt'))).toBe(false);

    // 2. A new process: load replays, then asks the open question again.
    writeFileSync(script, JSON.stringify([{ text: 'the proof is written' }, { text: 'and that was next' }]));
    const secondAsk = later<acp.RequestPermissionRequest>();
    const answer = later<acp.RequestPermissionResponse>();
    const second = startAcpChild(flags(), {
      onPermission: (params) => {
        secondAsk.resolve(params);
        return answer.promise;
      },
    });
    editors.push(second);
    await second.initialize();
    await second.agent.request(acp.methods.agent.session.load, { sessionId, cwd: project, mcpServers: [] });
    const replayed = second.updatesOf(sessionId);
    expect(chunkText(replayed, 'user_message_chunk')).toBe('write the proof');
    expect(replayed.filter((u) => u.sessionUpdate === 'tool_call')).toEqual([
      expect.objectContaining({ toolCallId: '1.1.c1', status: 'pending' }),
    ]);
    const again = await secondAsk.promise;
    expect(again.sessionId).toBe(sessionId);
    expect(again.toolCall).toMatchObject({
      toolCallId: '1.1.c1',
      rawInput: { command: 'echo ran > proof.txt' },
    });
    expect(JSON.stringify(again.toolCall.content)).toContain('writing needs a human');

    // 3. A prompt sent while the question is open waits for the suspended turn.
    const next = second.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'what next?' }],
    });
    await until(() => readFileSync(file, 'utf8').includes('what next?'), 30_000);
    expect(existsSync(path.join(project, 'proof.txt'))).toBe(false);
    answer.resolve({ outcome: { outcome: 'selected', optionId: 'allow_once' } });
    expect(await next).toEqual({ stopReason: 'end_turn' });

    // The resumed turn's updates went to this connection: the call ran, then both answers streamed in order.
    const live = second.updatesOf(sessionId).slice(replayed.length);
    expect(live.filter((u) => u.sessionUpdate === 'tool_call_update')).toEqual([
      expect.objectContaining({ toolCallId: '1.1.c1', status: 'in_progress' }),
      expect.objectContaining({ toolCallId: '1.1.c1', status: 'completed' }),
    ]);
    expect(chunkText(live, 'agent_message_chunk')).toBe('the proof is writtenand that was next');
    expect(readFileSync(path.join(project, 'proof.txt'), 'utf8')).toBe('ran\n');
    expect(await second.endStdin()).toBe(0);

    const { events, repairs } = await readJsonlLog(file);
    expect(repairs).toEqual([]);
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === 'turn/resumed')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'approval/resolved').map((e) => e.data)).toEqual([
      expect.objectContaining({ requestId: 'a1', outcome: 'allowed-once', by: 'editor' }),
    ]);
    expect(events.filter((e) => e.type === 'turn/end').map((e) => e.data)).toEqual([
      expect.objectContaining({ turn: 1, reason: { kind: 'completed' } }),
      expect.objectContaining({ turn: 2, reason: { kind: 'completed' } }),
    ]);
    // Turn 2 (the prompt sent meanwhile) started after turn 1 ended.
    expect(types.indexOf('turn/end')).toBeLessThan(
      events.findIndex((e) => e.type === 'turn/start' && (e.data as { turn: number }).turn === 2),
    );
    expect(checkInvariants(events, { atRest: true }).map(formatViolation)).toEqual([]);
  }, 120_000);
});
