// Process 2 (a web server): a person lists what waits and answers it; the answer resumes the turn here.
// Usage: PORT=8080 tsx server.ts SESSIONS_DIR
//   GET  /sessions/ID/approvals              → the pending requests (read only)
//   POST /sessions/ID/approvals/REQUEST_ID   {"outcome":"allowed-once"|"rejected","reason"?,"by"?,"argsHash"?}
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import {
  ApprovalError,
  listPendingApprovals,
  openJsonlStore,
  readJsonlLog,
  SessionLockedError,
} from 'seamchart';
import { z } from 'zod';
import { openAgent } from './agent.js';

const folder = process.argv[2] ?? '.';
const Answer = z.object({
  outcome: z.enum(['allowed-once', 'rejected']),
  reason: z.string().optional(),
  by: z.string().optional(),
  argsHash: z.string().optional(),
});

/** GET: what waits, read without locking the session (a run may hold it). */
async function pending(file: string) {
  const { events } = await readJsonlLog(file);
  return listPendingApprovals(events, new Date()).map(({ request, expired }) => ({ ...request, expired }));
}

/** POST: open the session, record the answer, and let the turn go on in this process. */
async function answer(file: string, requestId: string, body: z.infer<typeof Answer>) {
  const store = await openJsonlStore(file); // throws SessionLockedError while another process runs it
  const agent = openAgent(store, folder, [{ text: 'Done: web is live.' }]);
  try {
    await agent.whenIdle(); // starts 'suspended'
    const { by = 'web', ...rest } = body;
    const resolution = await agent.resolveApproval(requestId, { ...rest, by }); // durable when it returns
    await agent.whenIdle(); // the turn resumed and ran to its end (or suspended again)
    const last = agent.log.events.findLast((event) => event.type === 'turn/end');
    return { resolution, status: agent.status, turnEnd: last?.data ?? null };
  } finally {
    await agent.dispose();
  }
}

async function route(req: IncomingMessage): Promise<{ status: number; body: unknown }> {
  const match = /^\/sessions\/([\w-]+)\/approvals(?:\/([\w-]+))?$/.exec(req.url ?? '');
  if (!match) return { status: 404, body: { error: 'not found' } };
  const file = path.join(folder, `${match[1]}.jsonl`);
  if (req.method === 'GET' && match[2] === undefined) return { status: 200, body: await pending(file) };
  if (req.method !== 'POST' || match[2] === undefined)
    return { status: 405, body: { error: 'method not allowed' } };
  let text = '';
  for await (const chunk of req) text += String(chunk);
  const parsed = Answer.safeParse(JSON.parse(text || '{}'));
  if (!parsed.success) return { status: 400, body: { error: parsed.error.message } };
  try {
    return { status: 200, body: await answer(file, match[2], parsed.data) };
  } catch (error) {
    if (error instanceof ApprovalError)
      return { status: 409, body: { code: error.code, error: error.message } };
    if (error instanceof SessionLockedError)
      return { status: 409, body: { code: error.code, error: error.message } };
    throw error;
  }
}

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  route(req)
    .catch((error: unknown) => ({ status: 500, body: { error: String(error) } }))
    .then(({ status, body }) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
});
server.listen(Number(process.env.PORT ?? 8080), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : ''}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
