// A separate answering process: watches the sessions named on its command line and answers each one's deferred
// approval (allow or deny at random) once it appears, through the queue. Prints "ANSWERED <session> <request>
// <outcome>" when a worker recorded the answer, or "ERR <session> <message>"; "DONE" once every session is answered.
import { connectQueue } from '../../../distributed/index.js';

const [databaseUrl, ...sessions] = process.argv.slice(2);
if (databaseUrl === undefined) throw new Error('usage: approver URL SESSION...');
const queue = await connectQueue({ databaseUrl });
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function answer(sessionId: string): Promise<void> {
  let asked: string | undefined;
  for (;;) {
    const listing = await queue.listApprovals(sessionId).catch(() => undefined);
    const pending = listing?.approvals[0];
    // Asked before, and nothing pending now: the answer landed though its reply was lost (a worker died meanwhile).
    if (pending === undefined && asked !== undefined && listing !== undefined) {
      process.stdout.write(`ANSWERED ${sessionId} ${asked} unknown\n`);
      return;
    }
    if (pending !== undefined) {
      const { requestId } = pending.request;
      asked = requestId;
      const outcome = Math.random() < 0.5 ? 'allowed-once' : 'rejected';
      try {
        await queue.resolveApproval({ sessionId, requestId, outcome, by: 'approver' });
        process.stdout.write(`ANSWERED ${sessionId} ${requestId} ${outcome}\n`);
        return;
      } catch (error) {
        process.stdout.write(`ERR ${sessionId} ${(error as Error).message}\n`);
      }
    }
    await sleep(200 + Math.random() * 300);
  }
}

await Promise.all(sessions.map(answer));
await queue.close();
process.stdout.write('DONE\n');
