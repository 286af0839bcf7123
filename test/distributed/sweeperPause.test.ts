// A worker paused while it holds the sweeper's lock (SIGSTOP mid-sweep: a frozen VM, a long GC pause) must not
// stop the fleet's recovery: the server ends its idle connection, the lock goes with it, and another worker
// resumes a killed worker's deliveries. Before the fix the lock was held for as long as the pause lasted.
import { checkInvariants, formatViolation } from 'seamchart';
import { describe, expect, it } from 'vitest';
import { cli, eventually, startSender, type WorkerProcess } from './support/fleet.js';
import { useFleet } from './support/fleetSuite.js';

const script = Array.from({ length: 4 }, () => [
  { toolCalls: [{ id: 'sleep', name: 'Bash', arguments: { command: 'sleep 2' } }] },
  { text: 'done' },
]).flat();

const suite = useFleet('seamchart_sweeper', script);
const SESSIONS = ['sw-a', 'sw-b'];
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Whether the sweeper's advisory lock (two-key form, second key 0) is held by some connection. */
async function sweeperLockHeld(): Promise<boolean> {
  const rows = await suite.admin.query(
    "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND objid = 0",
  );
  return rows.rows.length > 0;
}

/** SIGSTOPs the only running worker at a moment it holds the sweeper's lock (seen twice, 100 ms apart). */
async function pauseWhileSweeping(worker: WorkerProcess): Promise<void> {
  for (let attempt = 0; attempt < 2_000; attempt++) {
    worker.child.kill('SIGSTOP');
    if (await sweeperLockHeld()) {
      await sleep(100);
      if (await sweeperLockHeld()) return;
    }
    worker.child.kill('SIGCONT');
    await sleep(Math.random() * 40);
  }
  throw new Error('never caught the worker holding the sweeper lock');
}

describe('Y the sweeper survives a paused sweeper', () => {
  it('a worker paused while holding the sweeper lock does not stop another from resuming a killed worker', async () => {
    expect((await cli(['db', 'migrate', '--database-url', suite.database.url])).code).toBe(0);
    const paused = await suite.fleet.start('sw-paused');
    await pauseWhileSweeping(paused);

    // With the sweeper frozen, a worker takes the sessions and is killed mid-body.
    const victim = await suite.fleet.start('sw-victim');
    const sender = startSender(suite.database.url);
    for (const sessionId of SESSIONS)
      expect(await sender.send({ sessionId, content: 'go', id: 'first', create: true })).toBe(
        `ACK ${sessionId} first`,
      );
    await sender.close();
    await eventually('both bodies run on the victim', async () => {
      for (const sessionId of SESSIONS)
        if ((await suite.storedEvents(sessionId)).at(-1)?.type !== 'tool/call') return false;
      return true;
    });
    victim.child.kill('SIGKILL');
    await victim.exited;
    const survivor = await suite.fleet.start('sw-survivor');

    // The paused worker's lock lapses with its connection; the survivor sweeps and finishes the deliveries.
    await eventually(
      'the survivor resumed the victim’s deliveries',
      () =>
        survivor.lines.some((line) => /sweeper: worker sw-victim is dead .* resumed 2 pending/.test(line)),
      60_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\nsurvivor:\n${survivor.lines.slice(-20).join('\n')}`);
    });
    await eventually(
      'both deliveries finished',
      async () => {
        for (const sessionId of SESSIONS)
          if ((await suite.storedEvents(sessionId)).at(-1)?.type !== 'turn/end') return false;
        return true;
      },
      60_000,
    );
    for (const sessionId of SESSIONS) {
      const events = await suite.storedEvents(sessionId);
      expect(checkInvariants(events, { atRest: true }).map(formatViolation)).toEqual([]);
      expect(events.find((event) => event.type === 'tool/result')?.data).toMatchObject({
        error: { code: 'TOOL_OUTCOME_UNKNOWN' },
      });
    }

    // Continued, the paused worker finds its sweep connection gone, says so, and goes on serving.
    paused.child.kill('SIGCONT');
    await eventually('the paused worker beats again', async () => {
      const rows = await suite.admin.query(
        "SELECT 1 FROM seamchart.workers WHERE executor_id = 'sw-paused' AND heartbeat_at > now() - interval '2 seconds'",
      );
      return rows.rows.length === 1;
    }).catch((error: Error) => {
      throw new Error(`${error.message}\npaused worker:\n${paused.lines.slice(-20).join('\n')}`);
    });
    for (const worker of [paused, survivor]) worker.child.kill('SIGTERM');
    expect(await paused.exited).toBe(143);
    expect(await survivor.exited).toBe(143);
  }, 180_000);
});
