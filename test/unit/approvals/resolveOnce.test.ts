import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { ApprovalError, readJsonlLog } from '../../../session/index.js';
import {
  createApprovalAgent,
  createJsonlStore,
  createSessionDir,
  openJsonlStore,
  type Ran,
  violationsOf,
} from './scenario.js';

const crashChild = join(import.meta.dirname, 'fixtures', 'crashInBody.ts');

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

const twoDeploys = {
  toolCalls: [
    { id: 'd1', name: 'deploy', arguments: { target: 'web' } },
    { id: 'd2', name: 'deploy', arguments: { target: 'db' } },
  ],
};

/** The refusal `promise` rejects with: its `ApprovalError` code. */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApprovalError);
  return (error as ApprovalError).code;
}

describe('a grant is consumed once', () => {
  it('V03 the same answer twice is a no-op; a different outcome, an unknown id or a wrong argsHash throws its code and writes nothing', async () => {
    const session = createSessionDir();
    cleanups.push(session.cleanup);
    const ran: Ran = [];
    const agent = createApprovalAgent({
      store: await createJsonlStore(session.file),
      script: [twoDeploys, { text: 'deployed both' }],
      ran,
    });
    cleanups.push(() => agent.dispose());
    agent.followup('ship it');
    await agent.whenIdle();
    expect(agent.status).toBe('suspended');
    const bytes = () => readFileSync(session.file, 'utf8');

    const first = await agent.resolveApproval('a1', { outcome: 'allowed-once', by: 'alice' });
    const afterFirst = bytes();
    expect(afterFirst.match(/"approval\/resolved"/g)).toHaveLength(1);
    // The same outcome again: the earlier answer is returned and nothing is written.
    expect(await agent.resolveApproval('a1', { outcome: 'allowed-once', by: 'bob' })).toEqual(first);
    expect(bytes()).toBe(afterFirst);

    expect(await codeOf(agent.resolveApproval('a1', { outcome: 'rejected' }))).toBe(
      'APPROVAL_ALREADY_RESOLVED',
    );
    expect(bytes()).toBe(afterFirst);
    expect(await codeOf(agent.resolveApproval('a9', { outcome: 'allowed-once' }))).toBe('UNKNOWN_APPROVAL');
    expect(bytes()).toBe(afterFirst);
    const wrongHash = 'f'.repeat(64);
    expect(await codeOf(agent.resolveApproval('a2', { outcome: 'allowed-once', argsHash: wrongHash }))).toBe(
      'APPROVAL_STALE',
    );
    expect(bytes()).toBe(afterFirst);
    expect(agent.status).toBe('suspended');
    expect(ran).toEqual([]);

    const [pending] = agent.approvals();
    expect(pending?.requestId).toBe('a2');
    await agent.resolveApproval('a2', { outcome: 'allowed-once', argsHash: pending!.argsHash });
    await agent.whenIdle();
    expect(agent.status).toBe('idle');
    expect(ran.map((r) => r.callId)).toEqual(['d1', 'd2']);

    // After the turn ended: the same answer is still a no-op, a different one still refused; nothing runs again.
    const ended = bytes();
    await agent.resolveApproval('a1', { outcome: 'allowed-once' });
    expect(await codeOf(agent.resolveApproval('a2', { outcome: 'rejected' }))).toBe(
      'APPROVAL_ALREADY_RESOLVED',
    );
    await agent.whenIdle();
    expect(bytes()).toBe(ended);
    expect(ran.map((r) => r.callId)).toEqual(['d1', 'd2']);
    expect(violationsOf(agent.log.events, { atRest: true })).toEqual([]);
  });

  it('V03 SIGKILL of the answering process after approval/resolved while the body runs: the reopened log shows TOOL_OUTCOME_UNKNOWN and the body never runs twice', async () => {
    const session = createSessionDir();
    cleanups.push(session.cleanup);
    const sideEffects = join(session.dir, 'side-effects.txt');
    const suspendedAgent = createApprovalAgent({
      store: await createJsonlStore(session.file),
      script: [{ toolCalls: [{ id: 'd1', name: 'deploy', arguments: { target: 'web' } }] }],
      ran: [],
    });
    suspendedAgent.followup('ship it');
    await suspendedAgent.whenIdle();
    expect(suspendedAgent.status).toBe('suspended');
    await suspendedAgent.dispose();

    // A real process answers, and is killed while the approved body runs.
    const child: ChildProcess = spawn(
      process.execPath,
      ['--import', 'tsx', crashChild, session.file, sideEffects, 'a1'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    );
    cleanups.push(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const lines = createInterface({ input: child.stdout! });
    await new Promise<void>((resolve, reject) => {
      lines.on('line', (line) => {
        if (line === 'BODY') resolve();
      });
      void exited.then(() => reject(new Error('the child exited before its body ran')));
    });
    const beforeKill = await readJsonlLog(session.file);
    expect(beforeKill.events.map((event) => event.type)).toContain('approval/resolved');
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(readFileSync(sideEffects, 'utf8')).toBe('d1\n');

    // Reopened: repaired as any crash mid-call; the grant is spent, the body does not run again.
    const ran: Ran = [];
    const store = await openJsonlStore(session.file);
    expect(store.repairs.join('\n')).toContain('d1');
    const agent = createApprovalAgent({ store, script: [{ text: 'after the crash' }], ran });
    cleanups.push(() => agent.dispose());
    await agent.whenIdle();
    expect(agent.status).toBe('idle');
    const result = agent.log.events.find((event) => event.type === 'tool/result')?.data as {
      callId: string;
      error?: { code: string };
    };
    expect(result).toMatchObject({ callId: 'd1', error: { code: 'TOOL_OUTCOME_UNKNOWN' } });
    // Answering again is the same answer (a no-op) and cannot run it either.
    await agent.resolveApproval('a1', { outcome: 'allowed-once' });
    await agent.whenIdle();
    expect(ran).toEqual([]);
    expect(readFileSync(sideEffects, 'utf8')).toBe('d1\n');
    expect(existsSync(`${session.file}.bak`)).toBe(true);
    expect(violationsOf(agent.log.events, { atRest: true })).toEqual([]);
  }, 90_000);
});
