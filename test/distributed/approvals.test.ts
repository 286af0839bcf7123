// N06: a deferred approval of a session run by the worker pool, answered with `seamchart approve --database-url`
// from another process: the answer goes through the session's queue partition and whichever worker takes it
// records it and resumes the turn. An unknown request or a different second answer exits 2, enqueuing nothing.
import { checkInvariants, formatViolation, type LogEvent } from 'seamchart';
import { describe, expect, it } from 'vitest';
import { askOncePerSessionSettings, cli, eventually, type WorkerProcess } from './support/fleet.js';
import { useFleet } from './support/fleetSuite.js';

// Every delivery's agent starts the script again: the message's turn asks about `echo ran` and suspends; the
// answer's agent resumes it, its next step runs the command again (the hook is silent once a session has asked),
// then answers.
const script = [
  { toolCalls: [{ id: 'sh', name: 'Bash', arguments: { command: 'echo ran' } }] },
  { text: 'done' },
];

const suite = useFleet('seamchart_n06', script);

async function workflowCount(): Promise<number> {
  return Number((await suite.admin.query('SELECT count(*) FROM dbos.workflow_status')).rows[0].count);
}

/** The session's pending requests, as `seamchart approvals --database-url --json` lists them. */
async function listed(sessionId: string): Promise<{ requestId: string; tool: string; expired: boolean }[]> {
  const result = await cli([
    'approvals',
    '--database-url',
    suite.database.url,
    '--session',
    sessionId,
    '--json',
  ]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
}

/** `seamchart approve --database-url URL --session SESSION ...rest`, from a process of its own. */
function approve(sessionId: string, ...rest: string[]): ReturnType<typeof cli> {
  return cli(['approve', '--database-url', suite.database.url, '--session', sessionId, ...rest]);
}

async function suspendedRequest(sessionId: string): Promise<string> {
  let requests: { requestId: string }[] = [];
  await eventually(
    `${sessionId} is suspended on a request`,
    async () => {
      requests = await listed(sessionId);
      return requests.length === 1;
    },
    60_000,
  );
  return requests[0]!.requestId;
}

function expectClean(events: readonly LogEvent[]): void {
  expect(checkInvariants(events, { atRest: true }).map(formatViolation)).toEqual([]);
}

describe('N06 approvals through the queue', () => {
  it('N06 an answer from another process resumes the turn on whichever worker takes it; an unknown id or a different second answer exits 2 and enqueues nothing', async () => {
    expect((await cli(['db', 'migrate', '--database-url', suite.database.url])).code).toBe(0);
    const settings = askOncePerSessionSettings(suite.fleet.folder, suite.database.url);
    const flags = ['--approve', 'defer', '--claude-settings', settings];
    const first: WorkerProcess = await suite.fleet.start('n06-w1', flags);

    // The first worker runs the turn until it suspends on the hook's question.
    const sent = await cli([
      'send',
      '--database-url',
      suite.database.url,
      '--session',
      'n06-a',
      '--new',
      'run it',
    ]);
    expect(sent.code, sent.stderr).toBe(0);
    const requestId = await suspendedRequest('n06-a');
    const human = await cli(['approvals', '--database-url', suite.database.url, '--session', 'n06-a']);
    expect(human.stdout).toContain('is suspended on 1 deferred approval');
    expect(human.stdout).toContain(`${requestId}  Bash {"command":"echo ran"}`);
    expect(human.stdout).toContain('seamchart approve --database-url URL --session n06-a REQUEST_ID');
    const suspendedEvents = await suite.storedEvents('n06-a');
    expect(suspendedEvents.at(-1)?.type).toBe('turn/suspended');
    expect(suspendedEvents.some((event) => event.type === 'tool/result')).toBe(false);

    // The worker that suspended it is gone; another one joins. Whichever worker takes the answer resumes.
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(143);
    const second = await suite.fleet.start('n06-w2', flags);

    // An unknown request id: exit 2, nothing enqueued, nothing written.
    const before = await workflowCount();
    const unknown = await approve('n06-a', 'a999');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no approval request "a999"');
    const nobody = await approve('nobody', requestId);
    expect(nobody.code).toBe(2);
    expect(nobody.stderr).toContain('does not exist');
    expect(await workflowCount()).toBe(before);
    expect(await suite.storedEvents('n06-a')).toHaveLength(suspendedEvents.length);

    // The answer, from this separate process: it returns once the worker recorded it and the turn went on.
    const approved = await approve('n06-a', requestId, '--by', 'ana');
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`${requestId}: allowed-once recorded`);
    expect(approved.stdout).toContain('nothing is pending: a worker resumed the turn');
    const events = await suite.storedEvents('n06-a');
    expectClean(events);
    const types = events.map((event) => event.type);
    expect(types.slice(types.indexOf('turn/suspended'))).toEqual(
      expect.arrayContaining(['approval/resolved', 'turn/resumed', 'tool/result', 'turn/end']),
    );
    const resolved = events.find((event) => event.type === 'approval/resolved')?.data as {
      requestId: string;
      outcome: string;
      by?: string;
    };
    expect(resolved).toMatchObject({ requestId, outcome: 'allowed-once', by: 'ana' });
    const result = events.find((event) => event.type === 'tool/result')?.data as { output?: unknown };
    expect(JSON.stringify(result)).toContain('ran');
    expect(events.at(-1)?.type).toBe('turn/end');
    // The second worker ran the answer's delivery.
    const ran = await suite.admin.query<{ executor_id: string; status: string }>(
      'SELECT executor_id, status FROM dbos.workflow_status WHERE workflow_uuid = $1',
      [`n06-a/#approval/${requestId}`],
    );
    expect(ran.rows).toEqual([{ executor_id: second.executorId, status: 'SUCCESS' }]);

    // A different second answer: exit 2, nothing enqueued or written. The same answer again: a no-op.
    const enqueued = await workflowCount();
    const denied = await approve('n06-a', requestId, '--deny');
    expect(denied.code).toBe(2);
    expect(denied.stderr).toContain('already resolved allowed-once');
    const again = await approve('n06-a', requestId);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('was already answered allowed-once; nothing written');
    expect(await workflowCount()).toBe(enqueued);
    expect(await suite.storedEvents('n06-a')).toHaveLength(events.length);

    // A denial through the library's path (the CLI is one caller): the model is told, the call never runs.
    const other = await cli([
      'send',
      '--database-url',
      suite.database.url,
      '--session',
      'n06-b',
      '--new',
      'run it',
    ]);
    expect(other.code, other.stderr).toBe(0);
    const second_request = await suspendedRequest('n06-b');
    const rejected = await approve('n06-b', second_request, '--deny', '--reason', 'not today');
    expect(rejected.code, rejected.stderr).toBe(0);
    const deniedEvents = await suite.storedEvents('n06-b');
    expectClean(deniedEvents);
    const deniedResult = JSON.stringify(deniedEvents.find((event) => event.type === 'tool/result')?.data);
    expect(deniedResult).toContain('not today');
    expect(deniedResult).not.toContain('ran');
    expect(deniedEvents.at(-1)?.type).toBe('turn/end');
  }, 180_000);
});
