import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { Seam } from '../../seams/index.js';
import { useAcpFixtures } from './harness.js';

const createFixture = useAcpFixtures();

/** `{ id, status, text }` of a tool call's final update; nothing for other updates. */
function finalState(update: acp.SessionUpdate): { id: string; status: string; text: string }[] {
  if (update.sessionUpdate !== 'tool_call_update') return [];
  if (update.status !== 'completed' && update.status !== 'failed') return [];
  const first = update.content?.[0];
  const text = first?.type === 'content' && first.content.type === 'text' ? first.content.text : '';
  return [{ id: update.toolCallId, status: update.status, text }];
}

const echo = (id: string, text: string) => ({ toolCalls: [{ id, name: 'echo', arguments: { text } }] });

describe('ACP permission requests', () => {
  it('A04 an ask becomes session/request_permission: allow_once runs, reject_once denies, allow_always is not asked again', async () => {
    const fixture = createFixture({
      scripts: [
        [echo('c1', 'one'), echo('c2', 'two'), echo('c3', 'three'), echo('c4', 'four'), { text: 'done' }],
      ],
      permissions: ['allow_once', 'reject_once', 'allow_always'],
      setup: (seams) => {
        seams.on(Seam.preExecute, () => ({ kind: 'ask', reason: 'echo talks back' }));
      },
    });
    await fixture.initialize();
    const sessionId = await fixture.newSession();
    expect(await fixture.prompt(sessionId, 'go')).toEqual({ stopReason: 'end_turn' });

    const { permissions } = fixture.record;
    expect(permissions.map((p) => p.toolCall.toolCallId)).toEqual(['1.1.c1', '1.2.c2', '1.3.c3']);
    expect(permissions[0]).toEqual({
      sessionId,
      toolCall: {
        toolCallId: '1.1.c1',
        title: 'echo: one',
        kind: 'read',
        status: 'pending',
        rawInput: { text: 'one' },
        content: [{ type: 'content', content: { type: 'text', text: 'echo talks back' } }],
      },
      options: [
        { optionId: 'allow_once', name: 'Allow', kind: 'allow_once' },
        { optionId: 'allow_always', name: 'Always allow', kind: 'allow_always' },
        { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
        { optionId: 'reject_always', name: 'Always reject', kind: 'reject_always' },
      ],
    });
    const finals = fixture.updatesOf(sessionId).flatMap(finalState);
    expect(finals).toEqual([
      { id: '1.1.c1', status: 'completed', text: 'one' },
      {
        id: '1.2.c2',
        status: 'failed',
        text: 'Error: Approval for tool "echo" was rejected: the user rejected it in the editor',
      },
      { id: '1.3.c3', status: 'completed', text: 'three' },
      { id: '1.4.c4', status: 'completed', text: 'four' },
    ]);
    await fixture.close();
    await fixture.expectCleanSessions();
  });

  it('A04 reject_always is remembered for that tool; a cancelled request denies as cancelled', async () => {
    const fixture = createFixture({
      scripts: [
        [echo('c1', 'one'), echo('c2', 'two'), { text: 'ok' }],
        [echo('c1', 'x'), { text: 'ok' }],
      ],
      permissions: ['reject_always', 'cancelled'],
      setup: (seams) => {
        seams.on(Seam.preExecute, () => ({ kind: 'ask' }));
      },
    });
    await fixture.initialize();
    const first = await fixture.newSession();
    expect(await fixture.prompt(first, 'go')).toEqual({ stopReason: 'end_turn' });
    expect(fixture.record.permissions).toHaveLength(1);
    const failed = fixture
      .updatesOf(first)
      .filter((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed');
    expect(failed).toHaveLength(2);

    // Remembered answers belong to one session: a new session asks again.
    const second = await fixture.newSession();
    expect(await fixture.prompt(second, 'go')).toEqual({ stopReason: 'end_turn' });
    expect(fixture.record.permissions).toHaveLength(2);
    const denial = fixture
      .updatesOf(second)
      .find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed');
    expect(JSON.stringify(denial)).toContain('Approval for tool \\"echo\\" was cancelled');
    await fixture.close();
    await fixture.expectCleanSessions();
  });
});
