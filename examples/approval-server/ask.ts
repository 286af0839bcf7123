// Process 1 (a chat worker): runs a prompt until the turn suspends on an approval, tells a person, and exits.
// Usage: tsx ask.ts SESSIONS_DIR SESSION_ID
import path from 'node:path';
import { createJsonlStore } from 'seamchart';
import { openAgent } from './agent.js';

const [folder = '.', sessionId = 'demo'] = process.argv.slice(2);
const store = await createJsonlStore(path.join(folder, `${sessionId}.jsonl`), { id: sessionId });
const agent = openAgent(
  store,
  folder,
  [{ text: 'Deploying.', toolCalls: [{ id: 'c1', name: 'deploy', arguments: { service: 'web' } }] }],
  (request) => console.log(JSON.stringify({ session: sessionId, ...request })),
);
agent.followup('deploy web');
await agent.whenIdle(); // resolves when the turn suspends
console.error(`session ${sessionId} is ${agent.status}`); // suspended
await agent.dispose(); // the question waits in the session file; nothing is held in memory
