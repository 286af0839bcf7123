// A writer that never stops writing: an agent over a PostgreSQL session answering one message after another, so
// the parent can catch it (SIGSTOP) between the statements of a write transaction. Reports READY, then FAILED code.
import { createToolRegistry } from '../../../index.js';
import { createAgent } from '../../../machines/index.js';
import { scriptedModel } from '../../../model/index.js';
import { createSeams } from '../../../seams/index.js';
import { createPostgresStore } from '../../../session/index.js';

const [databaseUrl, sessionId] = process.argv.slice(2);
if (databaseUrl === undefined || sessionId === undefined) throw new Error('usage: busyWriter URL SESSION');
const say = (line: string) => process.stdout.write(`${line}\n`);
const store = await createPostgresStore({
  connectionString: databaseUrl,
  sessionId,
  leaseMs: 1_000,
  holder: 'busy-writer',
});
const TURNS = 100_000;
const agent = createAgent({
  seams: createSeams({ logger: { error: () => {} } }),
  tools: createToolRegistry(),
  model: scriptedModel(Array.from({ length: TURNS }, (_, turn) => ({ text: `answer ${turn}` }))),
  store,
});
say('READY');
for (let turn = 0; turn < TURNS && store.failure === undefined && agent.status !== 'failed'; turn++) {
  agent.followup(`message ${turn}`);
  await agent.whenIdle();
}
say(`FAILED ${store.failure?.code ?? 'none'}`);
await agent.dispose();
say('EXIT');
