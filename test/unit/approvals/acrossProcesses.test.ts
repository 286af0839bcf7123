import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { readJsonlLog } from '../../../session/index.js';
import {
  createApprovalAgent,
  createJsonlStore,
  createSessionDir,
  type Ran,
  violationsOf,
} from './scenario.js';

const childFile = join(import.meta.dirname, 'fixtures', 'resolveInChild.ts');
const runChild = (args: string[]) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', childFile, ...args], { timeout: 60_000 });

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

const batch = {
  toolCalls: [
    { id: 'd1', name: 'deploy', arguments: { target: 'web' } },
    { id: 'd2', name: 'deploy', arguments: { target: 'db' } },
    { id: 'r1', name: 'read', arguments: {} },
    { id: 'w1', name: 'wipe', arguments: {} },
  ],
};

describe('a suspended turn resumes in another process', () => {
  it("V02 dispose, reopen in a new process, resolve the second request then the first: the approved call runs once through that process's guards, the rejected one is denied, the held call is judged again, results in model order, held contexts after the batch, the turn ends", async () => {
    const session = createSessionDir();
    cleanups.push(session.cleanup);
    const ran: Ran = [];
    const agent = createApprovalAgent({ store: await createJsonlStore(session.file), script: [batch], ran });
    agent.followup('ship it');
    await agent.whenIdle();
    expect(agent.status).toBe('suspended');
    agent.inject('held while suspended');
    await agent.dispose();
    expect(ran).toEqual([]);

    const { stdout } = await runChild([session.file, 'a2=allowed-once', 'a1=rejected']);
    const child = JSON.parse(stdout) as {
      statusAtStart: string;
      status: string;
      ran: Ran;
      guarded: string[];
      repairs: string[];
    };
    expect(child.statusAtStart).toBe('suspended');
    expect(child.repairs).toEqual([]);
    expect(child.status).toBe('idle');
    // d2 (approved) and the held read and the not-started wipe ran, each once; d1 (rejected) never did.
    expect(child.ran.map((r) => r.callId)).toEqual(['d2', 'r1', 'w1']);
    expect(child.ran[0]).toEqual({ callId: 'd2', tool: 'deploy', args: { target: 'db', env: 'prod' } });
    // The guards of the new process judged every call that went on to dispatch.
    expect(child.guarded).toEqual(['d2', 'r1', 'w1']);

    const { events } = await readJsonlLog(session.file);
    const types = events.filter((e) => !e.type.startsWith('inbox/')).map((e) => e.type);
    const resumed = types.indexOf('turn/resumed');
    expect(types.slice(types.indexOf('turn/suspended'), resumed + 1)).toEqual([
      'turn/suspended',
      'turn/held-context',
      'approval/resolved',
      'approval/resolved',
      'turn/resumed',
    ]);
    const results = events
      .filter((e) => e.type === 'tool/result')
      .map((e) => [
        (e.data as { callId: string }).callId,
        (e.data as { error?: { code: string } }).error?.code ?? 'ok',
      ]);
    expect(results).toEqual([
      ['d1', 'DENIED'],
      ['d2', 'ok'],
      ['r1', 'ok'],
      ['w1', 'ok'],
    ]);
    const lastResult = types.lastIndexOf('tool/result');
    expect(types.slice(lastResult + 1)).toEqual([
      'context/message',
      'step/end',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ]);
    expect(events.find((e) => e.type === 'turn/end')?.data).toMatchObject({ reason: { kind: 'completed' } });
    expect(violationsOf(events, { atRest: true })).toEqual([]);
  }, 90_000);
});
