// N02's holder: an agent over a PostgreSQL session whose tool body sleeps; it reports what it does on stdout
// (BODY when the body starts, MODEL n for each model request, STATUS s, FAILED code) so the parent can pause it.
import { z } from 'zod';
import { createToolRegistry, defineTool } from '../../../index.js';
import { createAgent } from '../../../machines/index.js';
import { type ModelAdapter, scriptedModel } from '../../../model/index.js';
import { createSeams } from '../../../seams/index.js';
import { createPostgresStore } from '../../../session/index.js';

const [databaseUrl, sessionId, bodyMs] = process.argv.slice(2);
if (databaseUrl === undefined || sessionId === undefined)
  throw new Error('usage: leaseHolder URL SESSION BODY_MS');
const say = (line: string) => process.stdout.write(`${line}\n`);
const store = await createPostgresStore({
  connectionString: databaseUrl,
  sessionId,
  leaseMs: 1_000,
  holder: 'n02-child',
});
const tools = createToolRegistry();
tools.register(
  defineTool({
    name: 'slow',
    description: 'sleeps',
    parameters: z.object({}),
    execute: async () => {
      say('BODY');
      await new Promise((resolve) => setTimeout(resolve, Number(bodyMs ?? 3000)));
      say('BODY_DONE');
      return 'slept';
    },
  }),
);
const scripted = scriptedModel([
  { toolCalls: [{ id: 'c1', name: 'slow', arguments: {} }] },
  { text: 'done' },
]);
let requests = 0;
const model: ModelAdapter = {
  ...scripted,
  request: (request) => {
    say(`MODEL ${++requests}`);
    return scripted.request(request);
  },
};
const seams = createSeams({ logger: { error: () => {} } });
seams.on('agent/status', ({ status }) => {
  say(`STATUS ${status}`);
});
const agent = createAgent({ seams, tools, model, store });
agent.followup('sleep please');
await agent.whenIdle();
say(`FAILED ${store.failure?.code ?? 'none'}`);
await agent.dispose();
say('EXIT');
