// A separate sending process: one JSON line per message on stdin ({ sessionId, content, id?, create? });
// prints "ACK <sessionId> <id>" once the enqueue is durable, or "ERR <sessionId> <code> <message>".
import { createInterface } from 'node:readline';
import { connectQueue, DistributedError } from '../../../distributed/index.js';

const [databaseUrl] = process.argv.slice(2);
if (databaseUrl === undefined) throw new Error('usage: sender URL');
const queue = await connectQueue({ databaseUrl });
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const message = JSON.parse(line) as { sessionId: string; content: string; id?: string; create?: boolean };
  try {
    const id = await queue.sendMessage(message);
    process.stdout.write(`ACK ${message.sessionId} ${id}\n`);
  } catch (error) {
    const code = error instanceof DistributedError ? error.code : 'ERROR';
    process.stdout.write(`ERR ${message.sessionId} ${code} ${(error as Error).message}\n`);
  }
}
await queue.close();
process.stdout.write('DONE\n');
