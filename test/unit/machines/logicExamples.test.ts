import { describe, expect, it } from 'vitest';
import { createActor, toPromise } from 'xstate';
import { z } from 'zod';
import { createToolBatchLogic, createToolRegistry, liveHandlesOf } from '../../../machines/index.js';
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
});
