// A second process writing a session while the parent reads it with `seamchart log`.
// `agent PATH`: an agent whose tool waits for a line on stdin (READY once it runs), then the turn completes.
// `partial PATH`: holds the session and writes half of its next line (READY), the rest after a stdin line.
import { closeSync, openSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { createAgent } from '../../../machines/agent/createAgent.js';
import { createToolRegistry } from '../../../machines/toolCall/createToolRegistry.js';
import { scriptedModel } from '../../../model/index.js';
import { createSeams } from '../../../seams/index.js';
import { createJsonlStore, createSessionLog } from '../../../session/index.js';
import { defineTool } from '../../../tools/index.js';

const [mode, path] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: liveWriter agent|partial PATH');
const lines = createInterface({ input: process.stdin });
const nextLine = () => new Promise<void>((resolve) => lines.once('line', () => resolve()));

if (mode === 'agent') {
  const store = await createJsonlStore(path, { id: 'live' });
  const tools = createToolRegistry();
  tools.register(
    defineTool({
      name: 'wait',
      description: 'waits for the parent',
      parameters: z.object({}),
      execute: async () => {
        process.stdout.write('READY\n');
        await nextLine();
        return 'released';
      },
    }),
  );
  const model = scriptedModel([{ toolCalls: [{ id: 'c1', name: 'wait', arguments: {} }] }, { text: 'done' }]);
  const agent = createAgent({ seams: createSeams(), tools, model, store });
  agent.followup('go');
  await agent.whenIdle();
  await agent.dispose();
  process.stdout.write('DONE\n');
} else {
  const store = await createJsonlStore(path, { id: 'partial' });
  const log = createSessionLog({ store });
  log.appendCore('turn/start', { turn: 1, trigger: { kind: 'message', source: { kind: 'user' } } });
  await log.flush();
  // The next line as the store would write it, in two writes: a reader in between sees half a line.
  const next = `${JSON.stringify({ seq: 1, type: 'turn/end', time: new Date().toISOString(), data: { turn: 1, reason: { kind: 'completed' } } })}\n`;
  const half = Math.floor(next.length / 2);
  const fd = openSync(path, 'a');
  writeSync(fd, next.slice(0, half));
  process.stdout.write('READY\n');
  await nextLine();
  writeSync(fd, next.slice(half));
  closeSync(fd);
  await store.close();
  process.stdout.write('DONE\n');
}
lines.close();
