import {
  checkInvariants,
  createAgent,
  createSeams,
  createToolRegistry,
  formatViolation,
  openPostgresStore,
  scriptedModel,
} from 'seamchart';
import { describe, expect, it } from 'vitest';
import { cli, eventually, startSender } from './support/fleet.js';
import { useFleet } from './support/fleetSuite.js';

const SESSIONS = 20;
const MESSAGES = 5;
const script = Array.from({ length: 6 }, () => [
  { toolCalls: [{ id: 'sleep', name: 'Bash', arguments: { command: 'sleep 0.05' } }] },
  { text: 'done' },
]).flat();

const suite = useFleet('seamchart_n03', script);
const { storedEvents } = suite;

/** The workers' own record of each delivery of a session: `<time> session S: message ID started|finished`. */
function deliverySpans(sessionId: string): { id: string; start: number; end: number }[] {
  const spans = new Map<string, { id: string; start: number; end: number }>();
  const pattern = new RegExp(
    `^seamchart worker: (\\S+) session ${sessionId}: message (\\S+) (started|finished)`,
  );
  for (const line of suite.fleet.workers.flatMap((worker) => worker.lines)) {
    const match = pattern.exec(line);
    if (match === null) continue;
    const [, time, id, what] = match as unknown as [string, string, string, string];
    const span = spans.get(id) ?? { id, start: Number.NaN, end: Number.NaN };
    if (what === 'started') span.start = Date.parse(time);
    else span.end = Date.parse(time);
    spans.set(id, span);
  }
  return [...spans.values()].sort((a, b) => a.start - b.start);
}

interface WorkflowRow {
  workflow_uuid: string;
  status: string;
  executor_id: string;
  queue_partition_key: string;
  started_at_epoch_ms: string;
  completed_at: string;
}

describe('N03 two workers, sessions in order', () => {
  it('N03 20 sessions × 5 messages from a third process run in send order, never two at once, each id once per session', async () => {
    const migrated = await cli(['db', 'migrate', '--database-url', suite.database.url]);
    expect(migrated.code).toBe(0);

    // An unknown session without --new: exit 2, nothing enqueued.
    const unknown = await cli(['send', '--database-url', suite.database.url, '--session', 'nobody', 'hello']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Session "nobody" does not exist');

    await suite.fleet.start('n03-w1');
    await suite.fleet.start('n03-w2');
    const sender = startSender(suite.database.url);
    const acks: string[] = [];
    for (let round = 1; round <= MESSAGES; round++) {
      for (let s = 1; s <= SESSIONS; s++) {
        acks.push(
          await sender.send({
            sessionId: `n03-s${s}`,
            content: `session ${s} message ${round}`,
            id: `msg-${round}`,
            ...(round === 1 ? { create: true } : {}),
          }),
        );
      }
    }
    // The same id again to one session: acknowledged with the same id, delivered once.
    acks.push(await sender.send({ sessionId: 'n03-s1', content: 'a retry of message 3', id: 'msg-3' }));
    await sender.close();
    expect(acks.every((line) => line.startsWith('ACK '))).toBe(true);
    expect(acks.at(-1)).toBe('ACK n03-s1 msg-3');

    await eventually(
      'every delivery finished',
      async () =>
        Number(
          (await suite.admin.query("SELECT count(*) FROM dbos.workflow_status WHERE status = 'SUCCESS'"))
            .rows[0].count,
        ) ===
        SESSIONS * MESSAGES,
      90_000,
    );
    const workflows = (
      await suite.admin.query<WorkflowRow>(
        'SELECT workflow_uuid, status, executor_id, queue_partition_key, started_at_epoch_ms, completed_at FROM dbos.workflow_status',
      )
    ).rows;
    expect(workflows).toHaveLength(SESSIONS * MESSAGES);
    expect(workflows.some((row) => row.workflow_uuid.startsWith('nobody/'))).toBe(false);
    // Different sessions ran on both workers.
    expect(new Set(workflows.map((row) => row.executor_id))).toEqual(new Set(['n03-w1', 'n03-w2']));

    for (let s = 1; s <= SESSIONS; s++) {
      const sessionId = `n03-s${s}`;
      // One runner per session at a time: each delivery started (worker logs) after the one before it finished.
      const spans = deliverySpans(sessionId);
      expect(spans.map((span) => span.id)).toEqual(['msg-1', 'msg-2', 'msg-3', 'msg-4', 'msg-5']);
      for (let i = 1; i < spans.length; i++)
        expect(spans[i]!.start).toBeGreaterThanOrEqual(spans[i - 1]!.end);
      const events = await storedEvents(sessionId);
      expect(checkInvariants(events, { atRest: true }).map(formatViolation)).toEqual([]);
      const claimed = events
        .filter((event) => event.type === 'turn/start')
        .map((event) => (event.data as { trigger: { itemId?: string } }).trigger.itemId);
      expect(claimed).toEqual(['msg-1', 'msg-2', 'msg-3', 'msg-4', 'msg-5']);
      const prompts = events
        .filter((event) => event.type === 'user/message')
        .map((event) => (event.data as { content: { text: string }[] }).content[0]?.text);
      expect(prompts).toEqual([1, 2, 3, 4, 5].map((round) => `session ${s} message ${round}`));
    }

    // Graceful stop: SIGTERM, exit 143.
    for (const worker of suite.fleet.workers) worker.child.kill('SIGTERM');
    expect(await Promise.all(suite.fleet.workers.map((worker) => worker.exited))).toEqual([143, 143]);

    // followup with an id the session accepted is a no-op returning it.
    const store = await openPostgresStore({ connectionString: suite.database.url, sessionId: 'n03-s2' });
    const agent = createAgent({
      seams: createSeams(),
      tools: createToolRegistry(),
      model: scriptedModel([{ text: 'unused' }]),
      store,
    });
    const before = agent.log.events.length;
    expect(agent.followup('message 2 once more', { id: 'msg-2' })).toBe('msg-2');
    expect(agent.log.events).toHaveLength(before);
    expect(() => agent.followup('generated form', { id: 'm7' })).toThrow(TypeError);
    await agent.dispose();
    expect(await storedEvents('n03-s2')).toHaveLength(before);
  }, 180_000);
});
