// N05: the chaos run — 3 real worker processes, 50 sessions × 4 messages (parallel tool calls) sent from a
// separate process, one deferred approval per session answered (allow or deny at random) from another process
// once it appears, 5 SIGKILLs of a random worker (each replaced) and one worker paused (SIGSTOP past its
// lease and the sweeper's deadAfterMs, then SIGCONT). At the end every acknowledged message is recorded in
// exactly one turn or discarded, every log checks clean at rest, tokens never go back (nothing the paused
// worker wrote after losing a lease is stored), its late writes were FENCED, and no worker process is left.
import { readdirSync, readFileSync } from 'node:fs';
import { checkInvariants, formatViolation, type LogEvent } from 'seamchart';
import { afterAll, describe, expect, it } from 'vitest';
import {
  askOncePerSessionSettings,
  cli,
  eventually,
  startApprover,
  startSender,
  type WorkerProcess,
} from './support/fleet.js';
import { useFleet } from './support/fleetSuite.js';

const SESSIONS = Number(process.env.CHAOS_SESSIONS ?? 50);
const MESSAGES = Number(process.env.CHAOS_MESSAGES ?? 4);
const KILLS = 5;
// A larger local run (CHAOS_SESSIONS=100) gets proportionally longer waits.
const SCALE = Math.max(1, (SESSIONS * MESSAGES) / 200);
// Per turn: two parallel reads, then a short shell command (a session's first one is asked about and the turn
// suspends), then the answer. Every delivery's agent starts the script again: the answer's agent resumes the
// suspended turn and runs the session's queued messages, and re-queued turns run again.
const script = Array.from({ length: MESSAGES + 3 }, () => [
  {
    toolCalls: [
      { id: 'ra', name: 'Read', arguments: { file_path: 'a.txt' } },
      { id: 'rb', name: 'Read', arguments: { file_path: 'b.txt' } },
    ],
  },
  { toolCalls: [{ id: 'sh', name: 'Bash', arguments: { command: 'sleep 0.2' } }] },
  { text: 'done' },
]).flat();

const suite = useFleet('seamchart_n05', script, 3);

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const isRunning = (worker: WorkerProcess) =>
  worker.child.exitCode === null && worker.child.signalCode === null;

async function count(sql: string, params: unknown[] = []): Promise<number> {
  return Number((await suite.admin.query(sql, params)).rows[0].count);
}

/** Processes whose command line names this test's database: workers (and anything they started) left behind. */
function leftoverProcesses(): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (command.includes(suite.database.name) || command.includes(suite.fleet.folder))
        found.push(`${entry}: ${command}`);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/**
 * SIGSTOPs a worker that holds a session lease while a tool body of that session runs (its last stored event is
 * `tool/call`), so it has a write left to make once it comes back; returns it with the tokens it held.
 */
async function pauseAHolder(
  live: readonly WorkerProcess[],
): Promise<{ worker: WorkerProcess; heldAtPause: Map<string, number> }> {
  for (;;) {
    for (const worker of live) {
      worker.child.kill('SIGSTOP');
      const held = await suite.admin.query<{ id: string; lease_token: string }>(
        'SELECT id, lease_token FROM seamchart.sessions WHERE lease_holder = $1',
        [worker.executorId],
      );
      const last = await suite.admin.query<{ session_id: string; event: string }>(
        'SELECT DISTINCT ON (session_id) session_id, event FROM seamchart.events WHERE session_id = ANY($1) ORDER BY session_id, seq DESC',
        [held.rows.map((row) => row.id)],
      );
      // Only those sessions count for the takeover: SIGCONT after one of them is taken, so its next write is late.
      const running = new Set(
        last.rows
          .filter((row) => (JSON.parse(row.event) as LogEvent).type === 'tool/call')
          .map((row) => row.session_id),
      );
      const inFlight = held.rows.filter((row) => running.has(row.id));
      if (inFlight.length > 0) {
        return { worker, heldAtPause: new Map(inFlight.map((row) => [row.id, Number(row.lease_token)])) };
      }
      worker.child.kill('SIGCONT');
    }
    await sleep(100);
  }
}

/** Resolves once another worker took over a session the paused worker held. */
async function takenOver(paused: WorkerProcess, heldAtPause: Map<string, number>): Promise<void> {
  await eventually(
    'a session of the paused worker is taken over',
    async () => {
      const rows = await suite.admin.query<{ id: string; lease_token: string; lease_holder: string | null }>(
        'SELECT id, lease_token, lease_holder FROM seamchart.sessions WHERE id = ANY($1)',
        [[...heldAtPause.keys()]],
      );
      return rows.rows.some(
        (row) => Number(row.lease_token) > heldAtPause.get(row.id)! && row.lease_holder !== paused.executorId,
      );
    },
    120_000,
  );
  await sleep(300);
}

// A failed run must not leave the answering process behind.
let stopApprover = (): void => {};
afterAll(() => stopApprover());

describe('N05 chaos', () => {
  it(
    `N05 3 workers, ${SESSIONS} sessions × ${MESSAGES} messages, ${KILLS} SIGKILLs and a paused worker: nothing lost, nothing doubled, every log clean`,
    async () => {
      expect((await cli(['db', 'migrate', '--database-url', suite.database.url])).code).toBe(0);
      let started = 0;
      const flags = [
        '--approve',
        'defer',
        '--claude-settings',
        askOncePerSessionSettings(suite.fleet.folder, suite.database.url),
      ];
      const startWorker = () => suite.fleet.start(`n05-w${++started}`, flags);
      const sessions = Array.from({ length: SESSIONS }, (_, index) => `n05-s${index + 1}`);
      const approver = startApprover(suite.database.url, sessions);
      stopApprover = () => approver.child.kill('SIGKILL');
      const live: WorkerProcess[] = await Promise.all([startWorker(), startWorker(), startWorker()]);

      // The sender runs beside the chaos: messages arrive while workers die.
      const sender = startSender(suite.database.url);
      const acked: { sessionId: string; id: string }[] = [];
      const sending = (async () => {
        for (let round = 1; round <= MESSAGES; round++) {
          for (let s = 1; s <= SESSIONS; s++) {
            const sessionId = `n05-s${s}`;
            const line = await sender.send({
              sessionId,
              content: `${sessionId} message ${round}`,
              id: `msg-${round}`,
              ...(round === 1 ? { create: true } : {}),
            });
            expect(line).toBe(`ACK ${sessionId} msg-${round}`);
            acked.push({ sessionId, id: `msg-${round}` });
          }
        }
        await sender.close();
      })();

      // Five kills of a random running worker, each replaced; one pause, of a worker that holds a lease.
      const killed: string[] = [];
      let paused: WorkerProcess | undefined;
      for (let kill = 1; kill <= KILLS; kill++) {
        await sleep(2_000);
        if (kill === 2) {
          const { worker: held, heldAtPause } = await pauseAHolder(live);
          paused = held;
          live.splice(live.indexOf(held), 1);
          // SIGCONT once one of its sessions was taken over (past its lease and the sweeper's deadAfterMs).
          void takenOver(held, heldAtPause).then(() => held.child.kill('SIGCONT'));
        }
        const victim = live[Math.floor(Math.random() * live.length)]!;
        victim.child.kill('SIGKILL');
        live.splice(live.indexOf(victim), 1);
        killed.push(victim.executorId);
        live.push(await startWorker());
      }
      await sending;
      expect(acked).toHaveLength(SESSIONS * MESSAGES);

      await eventually(
        'every approval is answered',
        () => approver.lines.includes('DONE'),
        180_000 * SCALE,
      ).catch((error: Error) => {
        throw new Error(`${error.message}\napprover:\n${approver.lines.join('\n')}`);
      });
      expect(await approver.exited).toBe(0);
      await eventually(
        'the queue is drained',
        async () =>
          (await count("SELECT count(*) FROM dbos.workflow_status WHERE status = 'SUCCESS'")) ===
            SESSIONS * (MESSAGES + 1) &&
          (await count("SELECT count(*) FROM dbos.workflow_status WHERE status <> 'SUCCESS'")) === 0,
        150_000 * SCALE,
      );
      const answered = new Map(
        approver.lines
          .filter((line) => line.startsWith('ANSWERED '))
          .map((line) => line.split(' ') as [string, string, string, string])
          .map(([, sessionId, requestId, outcome]) => [sessionId, { requestId, outcome }]),
      );
      expect(answered.size).toBe(SESSIONS);

      // Every acknowledged message is recorded in exactly one turn, or discarded; every log clean at rest.
      for (let s = 1; s <= SESSIONS; s++) {
        const sessionId = `n05-s${s}`;
        const rows = (
          await suite.admin.query<{ event: string; lease_token: string }>(
            'SELECT event, lease_token FROM seamchart.events WHERE session_id = $1 ORDER BY seq',
            [sessionId],
          )
        ).rows;
        const events = rows.map((row) => JSON.parse(row.event) as LogEvent);
        expect(checkInvariants(events, { atRest: true }).map(formatViolation)).toEqual([]);
        // One suspension, answered as the approver said; the turn resumed.
        const resolved = events.filter((event) => event.type === 'approval/resolved');
        const asked = answered.get(sessionId)!;
        expect(resolved.map((event) => (event.data as { requestId: string }).requestId)).toEqual([
          asked.requestId,
        ]);
        if (asked.outcome !== 'unknown')
          expect((resolved[0]!.data as { outcome: string }).outcome).toBe(asked.outcome);
        expect(events.filter((event) => event.type === 'turn/resumed')).toHaveLength(1);
        // Fencing tokens never go back along a session: no write of a superseded holder is stored.
        const tokens = rows.map((row) => Number(row.lease_token));
        expect(tokens).toEqual([...tokens].sort((a, b) => a - b));
        const recorded = new Map<string, number>();
        const discarded = new Set<string>();
        let claim: string | undefined;
        for (const event of events) {
          const data = event.data as { trigger?: { itemId?: string }; ids?: string[] };
          if (event.type === 'turn/start') claim = data.trigger?.itemId;
          if ((event.type === 'user/message' || event.type === 'prompt/blocked') && claim !== undefined)
            recorded.set(claim, (recorded.get(claim) ?? 0) + 1);
          if (event.type === 'inbox/discarded') for (const id of data.ids ?? []) discarded.add(id);
        }
        for (const { id } of acked.filter((message) => message.sessionId === sessionId)) {
          const times = (recorded.get(id) ?? 0) + (discarded.has(id) ? 1 : 0);
          expect(times, `${sessionId} ${id}`).toBe(1);
        }
      }
      // The paused worker came back and was fenced: its late writes were refused.
      await eventually(
        'the paused worker was fenced',
        () => paused!.lines.some((line) => line.includes('FENCED')),
        // Its next write or lease renewal may wait behind a tool body or a slow event loop on a loaded machine.
        60_000,
      ).catch((error: Error) => {
        throw new Error(
          `${error.message}\nthe paused worker's last lines:\n${paused!.lines.slice(-40).join('\n')}`,
        );
      });
      live.push(paused!);
      expect(killed).toHaveLength(KILLS);

      for (const worker of live) if (isRunning(worker)) worker.child.kill('SIGTERM');
      const codes = await Promise.all(live.map((worker) => worker.exited));
      expect(codes.every((code) => code === 143)).toBe(true);
      await eventually('no worker process is left', () => leftoverProcesses().length === 0, 10_000);
    },
    420_000 * SCALE,
  );
});
