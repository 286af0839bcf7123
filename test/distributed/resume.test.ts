import { checkInvariants, formatViolation } from 'seamchart';
import { describe, expect, it } from 'vitest';
import { cli, eventually, startSender } from './support/fleet.js';
import { useFleet } from './support/fleetSuite.js';

const script = Array.from({ length: 6 }, () => [
  { toolCalls: [{ id: 'sleep', name: 'Bash', arguments: { command: 'sleep 2' } }] },
  { text: 'done' },
]).flat();

const suite = useFleet('seamchart_n04', script);
const { storedEvents } = suite;

const SESSIONS = ['n04-a', 'n04-b', 'n04-c', 'n04-d'];

describe('N04 a killed worker’s turns are resumed', () => {
  it('N04 SIGKILL mid-tool-body: another worker resumes, the call is TOOL_OUTCOME_UNKNOWN, every message once', async () => {
    expect((await cli(['db', 'migrate', '--database-url', suite.database.url])).code).toBe(0);
    const victim = await suite.fleet.start('n04-victim');
    const sender = startSender(suite.database.url);
    const acked = new Map<string, string[]>();
    for (const sessionId of SESSIONS) {
      for (const round of [1, 2]) {
        const line = await sender.send({
          sessionId,
          content: `${sessionId} ${round}`,
          id: `r${round}`,
          ...(round === 1 ? { create: true } : {}),
        });
        expect(line).toBe(`ACK ${sessionId} r${round}`);
        acked.set(sessionId, [...(acked.get(sessionId) ?? []), `r${round}`]);
      }
    }
    await sender.close();
    // Every session's first tool body runs on the victim (its tool/call is committed before the body starts).
    await eventually('every first body runs', async () => {
      for (const sessionId of SESSIONS) {
        const types = (await storedEvents(sessionId)).map((event) => event.type);
        if (types.at(-1) !== 'tool/call') return false;
      }
      return true;
    });
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');
    expect(await victim.exited).toBe(-1);
    // Started after the kill, so every session is the victim's (the bench measures kill-to-resume with a warm fleet).
    const survivor = await suite.fleet.start('n04-survivor');

    await eventually(
      'the survivor resumed the victim’s deliveries',
      () =>
        survivor.lines.some((line) =>
          /sweeper: worker n04-victim is dead .* resumed 4 pending workflows/.test(line),
        ),
      30_000,
    );
    await eventually(
      'every delivery finished',
      async () =>
        Number(
          (await suite.admin.query("SELECT count(*) FROM dbos.workflow_status WHERE status = 'SUCCESS'"))
            .rows[0].count,
        ) ===
        SESSIONS.length * 2,
      90_000,
    );
    const resumedAt = survivor.lines
      .map((line) => /^seamchart worker: (\S+) session n04-\w+: message r1 started/.exec(line)?.[1])
      .filter((time): time is string => time !== undefined)
      .map((time) => Date.parse(time));
    expect(resumedAt).toHaveLength(SESSIONS.length);
    console.log(
      `N04 kill-to-resume (the survivor started after the kill): ${Math.min(...resumedAt) - killedAt} ms (first), ${Math.max(...resumedAt) - killedAt} ms (last)`,
    );

    for (const sessionId of SESSIONS) {
      const events = await storedEvents(sessionId);
      expect(checkInvariants(events, { atRest: true }).map(formatViolation)).toEqual([]);
      // Turn 1 was interrupted by the kill: its running call has a tool/call and an unknown outcome.
      const turn1 = events.filter((event) => (event.data as { turn?: number }).turn === 1);
      expect(turn1.map((event) => event.type)).toEqual([
        'turn/start',
        'step/start',
        'assistant/message',
        'tool/call',
        'tool/result',
        'step/end',
        'turn/end',
      ]);
      expect(turn1[4]?.data).toMatchObject({ callId: 'sleep', error: { code: 'TOOL_OUTCOME_UNKNOWN' } });
      expect(turn1[6]?.data).toMatchObject({ reason: { kind: 'interrupted' } });
      // Every acknowledged message is recorded in exactly one turn (r1 in the interrupted turn, r2 after it).
      const recorded = events
        .filter((event) => event.type === 'turn/start')
        .map((event) => (event.data as { trigger: { itemId?: string } }).trigger.itemId);
      expect(recorded).toEqual(acked.get(sessionId));
      expect(events.filter((event) => event.type === 'user/message')).toHaveLength(2);
      expect(events.at(-1)?.data).toMatchObject({ turn: 2, reason: { kind: 'completed' } });
    }
    survivor.child.kill('SIGTERM');
    expect(await survivor.exited).toBe(143);
  }, 180_000);
});
