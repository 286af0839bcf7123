import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../tools/index.js';
import { until, useAcpFixtures } from './harness.js';

const createFixture = useAcpFixtures();

// Runs until its call is aborted, as a long build or a test run would.
const waitTool = defineTool({
  name: 'wait',
  description: 'Waits until cancelled',
  parameters: z.object({}),
  execute: (_args, exec) =>
    new Promise<string>((_resolve, reject) => {
      exec.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
    }),
});

describe('ACP cancellation', () => {
  it('A05 session/cancel during a tool batch answers cancelled, results stay paired, and a queued prompt answers cancelled too', async () => {
    const fixture = createFixture({
      scripts: [
        [
          {
            toolCalls: [
              { id: 'c1', name: 'wait', arguments: {} },
              { id: 'c2', name: 'echo', arguments: { text: 'a' } },
            ],
          },
        ],
      ],
      setup: (_seams, tools) => {
        tools.register(waitTool);
      },
    });
    await fixture.initialize();
    const sessionId = await fixture.newSession();
    const running = fixture.prompt(sessionId, 'start the long job');
    const queued = fixture.prompt(sessionId, 'and then this');
    await until(() =>
      fixture!
        .updatesOf(sessionId)
        .some((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress'),
    );
    await fixture.client.notify(acp.methods.agent.session.cancel, { sessionId });
    expect(await running).toEqual({ stopReason: 'cancelled' });
    expect(await queued).toEqual({ stopReason: 'cancelled' });
    // Every tool call the editor saw was closed.
    const updates = fixture.updatesOf(sessionId);
    const started = updates.flatMap((u) => (u.sessionUpdate === 'tool_call' ? [u.toolCallId] : []));
    const ended = updates.flatMap((u) =>
      u.sessionUpdate === 'tool_call_update' && (u.status === 'completed' || u.status === 'failed')
        ? [u.toolCallId]
        : [],
    );
    expect(started).toEqual(['1.1.c1', '1.1.c2']);
    expect([...ended].sort()).toEqual(['1.1.c1', '1.1.c2']);
    await fixture.close();
    await fixture.expectCleanSessions();
  });

  it('A05 a prompt sent after a cancel runs normally', async () => {
    const fixture = createFixture({ scripts: [[{ hang: true }, { text: 'back again' }]] });
    await fixture.initialize();
    const sessionId = await fixture.newSession();
    const hanging = fixture.prompt(sessionId, 'wait forever');
    await new Promise((resolve) => setTimeout(resolve, 20));
    await fixture.client.notify(acp.methods.agent.session.cancel, { sessionId });
    expect(await hanging).toEqual({ stopReason: 'cancelled' });
    expect(await fixture.prompt(sessionId, 'hello?')).toEqual({ stopReason: 'end_turn' });
    await fixture.close();
    await fixture.expectCleanSessions();
  });

  it('closing the connection disposes every agent: an open prompt answers and the files are flushed', async () => {
    const fixture = createFixture({ scripts: [[{ hang: true }]] });
    await fixture.initialize();
    const sessionId = await fixture.newSession();
    const hanging = fixture.prompt(sessionId, 'wait').catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 20));
    fixture.connection.close();
    expect(await hanging).toBeInstanceOf(Error);
    await fixture.server.close();
    await fixture.expectCleanSessions();
    const { readJsonlLog } = await import('../../session/index.js');
    const { events } = await readJsonlLog(`${fixture.sessionsDir}/${sessionId}.jsonl`);
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: { kind: 'disposed' } } });
  });
});
