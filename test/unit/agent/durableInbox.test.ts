// D06: followup ids acknowledged before a SIGKILL are recorded, discarded, or re-queued on resume — never lost.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkInvariants, createJsonlStore, type LogEvent, openJsonlStore, type SeamPlugin } from 'seamchart';
import { createTestAgent } from 'seamchart/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { sleep } from './helpers.js';

const root = resolve(import.meta.dirname, '../../..');
const childFile = join(import.meta.dirname, 'children/inboxChild.ts');
const directory = mkdtempSync(join(tmpdir(), 'seamchart-d06-'));
const live = new Set<ChildProcess>();
afterAll(() => {
  for (const child of live) child.kill('SIGKILL');
  rmSync(directory, { recursive: true, force: true });
});
const TRIALS = Number(process.env.D06_TRIALS ?? 30);
const PARALLEL = 4;

/** Runs the writer, feeds it followups at random moments, SIGKILLs it at a random moment; returns the ACKed ids. */
async function crashTrial(path: string): Promise<string[]> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', childFile, path], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  live.add(child);
  // The parent writes until it sees the kill; a write to the dead child's stdin is expected to fail.
  child.stdin?.on('error', () => {});
  const acked: string[] = [];
  let text = '';
  let ready: () => void = () => {};
  const isReady = new Promise<void>((done) => {
    ready = done;
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n')) {
      const line = text.slice(0, newline);
      text = text.slice(newline + 1);
      if (line === 'READY') ready();
      else if (line.startsWith('ACK ')) acked.push(line.slice(4));
    }
  });
  const closed = new Promise<void>((done) => child.stdout?.once('close', () => done()));
  // 'exit' reaps the child: until then its pid still looks alive to the lock's takeover check.
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  await isReady;
  const killAt = Math.random() * 120;
  const killer = sleep(killAt).then(() => child.kill('SIGKILL'));
  const messages = 1 + Math.floor(Math.random() * 10);
  for (let i = 0; i < messages && child.exitCode === null && child.signalCode === null; i++) {
    child.stdin?.write(`${Math.random() < 0.25 ? 'block me' : 'hello'} ${i}\n`);
    await sleep(Math.random() * 12);
  }
  await killer;
  await Promise.all([closed, exited]);
  live.delete(child);
  return acked;
}

const turnsOf = (events: readonly LogEvent[]) => {
  const turns: { itemId: string | undefined; types: string[] }[] = [];
  for (const event of events) {
    if (event.type === 'turn/start') {
      const trigger = (event.data as { trigger: { itemId?: string } }).trigger;
      turns.push({ itemId: trigger.itemId, types: [] });
    }
    turns.at(-1)?.types.push(event.type);
  }
  return turns;
};
const acceptedIds = (events: readonly LogEvent[]) =>
  events.filter((e) => e.type === 'inbox/accepted').map((e) => (e.data as { id: string }).id);
const discardedIds = (events: readonly LogEvent[]) =>
  events.filter((e) => e.type === 'inbox/discarded').flatMap((e) => (e.data as { ids: string[] }).ids);

interface TrialOutcome {
  acked: number;
  recorded: number;
  discarded: number;
  requeued: number;
  /** Re-queued items a turn had claimed before the kill (killed in the prompt-submit listener, say). */
  claimedThenKilled: number;
}

/** Blocks a prompt that says "block", as the child's writer does. */
const blocker: SeamPlugin = {
  name: 'blocker',
  apply: (seams) =>
    seams.on('agent/prompt-submit', (context, next) =>
      JSON.stringify(context.content).includes('block') ? { kind: 'block', reason: 'blocked' } : next(),
    ),
};

/** Resumes the killed session in this process and checks every acknowledged id's fate. */
async function resumeAndCheck(path: string, acked: readonly string[]): Promise<TrialOutcome> {
  const store = await openJsonlStore(path);
  const before = store.initialEvents;
  expect(checkInvariants(before)).toEqual([]);
  const { agent, notifications } = createTestAgent({
    plugins: [blocker],
    script: Array.from({ length: 40 }, (_, i) => ({ text: `resumed ${i}` })),
    options: { store },
  });
  const requeued = notifications.of('agent/inbox/enqueue').map((item) => item.id);
  const newId = agent.followup('new after resume');
  await agent.whenIdle();
  const after = agent.log.events;
  await agent.dispose();
  // Ids never repeat across the resume.
  const ids = acceptedIds(after);
  expect(new Set(ids).size).toBe(ids.length);
  expect(acceptedIds(before)).not.toContain(newId);
  expect(checkInvariants(after, { atRest: true })).toEqual([]);
  const recordedBefore = new Set(
    turnsOf(before)
      .filter((turn) => turn.types.includes('user/message') || turn.types.includes('prompt/blocked'))
      .flatMap((turn) => (turn.itemId === undefined ? [] : [turn.itemId])),
  );
  const discarded = new Set(discardedIds(before));
  // Turns after the resume only (an interrupted turn before the crash may have claimed the same item).
  const turnsAfter = turnsOf(after.slice(before.length));
  const turnOf = (id: string) => turnsAfter.findIndex((turn) => turn.itemId === id);
  const outcome: TrialOutcome = {
    acked: acked.length,
    recorded: 0,
    discarded: 0,
    requeued: 0,
    claimedThenKilled: 0,
  };
  for (const id of acked) {
    expect(acceptedIds(before)).toContain(id);
    const fates = [recordedBefore.has(id), discarded.has(id), requeued.includes(id)].filter(Boolean);
    expect(fates, `acknowledged ${id} has exactly one fate`).toHaveLength(1);
    if (recordedBefore.has(id)) outcome.recorded++;
    else if (discarded.has(id)) outcome.discarded++;
    else {
      outcome.requeued++;
      if (turnsOf(before).some((turn) => turn.itemId === id)) outcome.claimedThenKilled++;
      // A re-queued item runs (recorded) before the first new message.
      expect(turnOf(id)).toBeGreaterThanOrEqual(0);
      const turn = turnsAfter[turnOf(id)];
      expect(turn?.types.some((type) => type === 'user/message' || type === 'prompt/blocked')).toBe(true);
      expect(turnOf(id)).toBeLessThan(turnOf(newId));
    }
  }
  expect(turnsAfter[turnOf(newId)]?.types).toContain('user/message');
  return outcome;
}

describe('D06 the durable inbox survives SIGKILL', () => {
  it(
    `D06 followups acknowledged before a SIGKILL are recorded, discarded or re-queued on resume (${TRIALS} trials)`,
    async () => {
      const totals: TrialOutcome = { acked: 0, recorded: 0, discarded: 0, requeued: 0, claimedThenKilled: 0 };
      let next = 0;
      const worker = async () => {
        while (next < TRIALS) {
          const path = join(directory, `trial-${next++}.jsonl`);
          const acked = await crashTrial(path);
          const outcome = await resumeAndCheck(path, acked);
          for (const key of Object.keys(totals) as (keyof TrialOutcome)[]) totals[key] += outcome[key];
        }
      };
      await Promise.all(Array.from({ length: PARALLEL }, worker));
      if (process.env.D06_TRIALS !== undefined) console.log(`D06 ${TRIALS} trials`, totals);
      expect(totals.acked).toBeGreaterThan(0);
      expect(totals.acked).toBe(totals.recorded + totals.discarded + totals.requeued);
    },
    Math.max(240_000, TRIALS * 8_000),
  );

  it('D06 a graceful dispose() of a file-backed agent keeps pending items; the resume runs them first', async () => {
    const path = join(directory, 'dispose.jsonl');
    const { agent: first } = createTestAgent({
      script: [{ hang: true }],
      options: { store: await createJsonlStore(path, { id: 'dispose' }) },
    });
    first.followup('a');
    const b = first.followup('b');
    const c = first.queue('c');
    await sleep(20);
    await first.dispose();
    expect(discardedIds(first.log.events)).toEqual([]);
    const store = await openJsonlStore(path);
    const { agent: second, notifications } = createTestAgent({
      script: [{ text: 'A' }, { text: 'B' }, { text: 'C' }, { text: 'D' }],
      options: { store },
    });
    const requeued = notifications.of('agent/inbox/enqueue').map((item) => item.id);
    expect(requeued).toEqual(expect.arrayContaining([b, c]));
    const d = second.followup('d');
    await second.whenIdle();
    const claims = turnsOf(second.log.events).map((turn) => turn.itemId);
    expect(claims.indexOf(b)).toBeLessThan(claims.indexOf(d));
    expect(claims.indexOf(c)).toBeLessThan(claims.indexOf(d));
    expect(checkInvariants(second.log.events, { atRest: true })).toEqual([]);
    await second.dispose();
  });
});
