// D06's writer: an agent over a JSONL session that acknowledges every stdin line as a followup (ACK <id>),
// with a slow prompt-submit listener that blocks lines containing "block". The parent SIGKILLs it.
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createAgent } from '../../../../machines/agent/createAgent.js';
import { scriptedModel } from '../../../../model/index.js';
import { createSeams } from '../../../../seams/index.js';
import { createJsonlStore, openJsonlStore } from '../../../../session/index.js';
import { createToolRegistryCore } from '../../../../tools/index.js';

const [path] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: inboxChild PATH');
const store = existsSync(path) ? await openJsonlStore(path) : await createJsonlStore(path, { id: 'd06' });
const seams = createSeams();
seams.on('agent/prompt-submit', async (context, next) => {
  // Slow: the kill often lands while a claimed message waits here, before its user/message.
  await new Promise((done) => setTimeout(done, Math.random() * 15));
  const text = JSON.stringify(context.content);
  return text.includes('block') ? { kind: 'block', reason: 'blocked by the test' } : next();
});
const agent = createAgent({
  seams,
  store,
  tools: createToolRegistryCore(),
  model: scriptedModel(Array.from({ length: 500 }, (_, i) => ({ text: `reply ${i}` }))),
});
process.stdout.write('READY\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const id = agent.followup(line);
  process.stdout.write(`ACK ${id}\n`);
});
