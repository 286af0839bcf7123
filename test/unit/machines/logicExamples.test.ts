import { describe, expect, it } from 'vitest';
import { createActor, toPromise } from 'xstate';
import { z } from 'zod';
import {
  createToolBatchLogic,
  createToolRegistry,
  createTurnLogic,
  liveHandlesOf,
} from '../../../machines/index.js';
import type { InboxItem } from '../../../machines/runtime/index.js';
import { scriptedModel } from '../../../model/index.js';
import type { AgentHandle } from '../../../seams/index.js';
import { createSeams } from '../../../seams/index.js';
import { createSessionLog } from '../../../session/index.js';
import { defineTool } from '../../../tools/index.js';

// engine.md: the `create*Logic` factories work from their JSDoc example alone (no scope to open first).
function exampleServices() {
  const tools = createToolRegistry();
  tools.register(
    defineTool({
      name: 'echo',
      description: 'Echo the text',
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => `echo: ${text}`,
    }),
  );
  return { tools, seams: createSeams(), log: createSessionLog() };
}

describe('E07 the create*Logic factories run from their JSDoc example alone', () => {
  it('E07 createToolBatchLogic: a batch with no scope opened runs its calls, logs them and closes what it opened', async () => {
    const { tools, seams, log } = exampleServices();
    const calls = [
      { type: 'tool-call' as const, id: 'c1', name: 'echo', arguments: '{"text":"a"}' },
      { type: 'tool-call' as const, id: 'c2', name: 'echo', arguments: '{"text":"b"}' },
    ];
    // The JSDoc example of createToolBatchLogic, as it is written there.
    const batch = createToolBatchLogic({ tools, seams, log, cancelGraceMs: 5_000 });
    const actor = createActor(batch, { input: { turn: 1, step: 1, calls, maxParallel: 4 } }).start();
    const output = await toPromise(actor);

    expect(output).toEqual({ aborted: false });
    expect(
      log.events.map((event) => {
        const data = event.data as { callId?: string; content?: readonly { text?: string }[] };
        return `${event.type} ${data.callId ?? ''} ${data.content?.[0]?.text ?? ''}`.trim();
      }),
      // echo declares no concurrency: it is exclusive, so each call commits before the next starts.
    ).toEqual(['tool/call c1', 'tool/result c1 echo: a', 'tool/call c2', 'tool/result c2 echo: b']);
    // The scope it opened (and every call handle under it) went with it.
    expect(liveHandlesOf(actor.system).scopes.size).toBe(0);
  });

  it('E07 createTurnLogic: a turn with no scope opened asks the model, runs its tool call, logs the turn and closes what it opened', async () => {
    const { tools, seams, log } = exampleServices();
    const model = scriptedModel([
      { toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'a' } }] },
      { text: 'done' },
    ]);
    const agent: AgentHandle = {
      id: 'a1',
      status: 'running',
      log,
      followup: () => 'unused',
      queue: () => 'unused',
      steer: () => 'unused',
      inject: () => {},
      cancel: () => {},
    };
    const services = {
      tools,
      seams,
      log,
      model,
      agent,
      cancelGraceMs: 5_000,
      maxParallelToolCalls: 10,
      maxRequestRetries: 3,
      sessionStartTimeoutMs: 1_000,
      reportError: () => {},
    };
    const item: InboxItem = {
      id: 'm1',
      content: [{ type: 'text', text: 'go' }],
      source: { kind: 'user' },
      contexts: [],
      wakeup: true,
    };
    const seamsPresent = {
      'agent/prompt-submit': false,
      'agent/pre-step': false,
      'agent/post-step': false,
      'agent/request-error': false,
      'agent/turn-continuation': false,
      'agent/turn-stop': false,
    };
    // The JSDoc example of createTurnLogic, as it is written there.
    const turn = createActor(createTurnLogic(services), {
      input: {
        agentId: 'a1',
        turn: 1,
        item,
        seamsPresent,
        maxRequestRetries: 3,
        maxParallel: 10,
        maxStepsPerTurn: 100,
      },
    }).start();
    const { reason } = await toPromise(turn);

    expect(reason).toEqual({ kind: 'completed' });
    expect(log.events.map((event) => event.type)).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'tool/call',
      'tool/result',
      'step/end',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ]);
    expect(log.events.find((event) => event.type === 'tool/result')?.data).toMatchObject({
      callId: 'c1',
      content: [{ type: 'text', text: 'echo: a' }],
    });
    // The scope it opened (and every call handle under it) went with it.
    expect(liveHandlesOf(turn.system).scopes.size).toBe(0);
  });
});
