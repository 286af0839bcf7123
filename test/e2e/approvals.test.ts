// approvals.md "Where people answer" / cli.md: a run that defers its approvals exits 3, a person answers them with
// `seamchart approve` while no run holds the session, and `run --resume` finishes the turn.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.js';
import { checkInvariants, formatViolation, readJsonlLog } from '../../session/index.js';
import { captureIO } from './support/captureIO.js';

const holderScript = path.join(import.meta.dirname, 'children/holdSession.ts');

let dir: string;
let session: string;
let holder: ChildProcess | undefined;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'seamchart-approvals-cli-'));
  session = path.join(dir, 'session.jsonl');
});
afterEach(async () => {
  if (holder && holder.exitCode === null && holder.signalCode === null) {
    holder.kill('SIGKILL');
    await new Promise((done) => holder?.once('exit', done));
  }
  holder = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: unknown): Promise<string> {
  const target = path.join(dir, name);
  await writeFile(target, typeof content === 'string' ? content : JSON.stringify(content));
  return target;
}

/** A Claude Code PreToolUse hook that asks about every Bash call. */
async function askingSettings(): Promise<string> {
  const hook = await file(
    'hook.sh',
    'cat > /dev/null\necho \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"writing needs a human"}}\'\n',
  );
  return file('settings.json', {
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `sh ${hook}` }] }] },
  });
}

/** `seamchart ARGS` in this process; its exit code and what it printed. */
async function seamchart(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIO();
  const code = await main(args, io);
  return { code, out: io.out(), err: io.err() };
}

/** `seamchart log FILE --check` passes, and the log itself checks clean. */
async function expectLogChecks(): Promise<void> {
  const checked = await seamchart('log', session, '--check');
  expect(checked.out).toContain('invariants: ok');
  expect(checked.code).toBe(0);
  const { events } = await readJsonlLog(session);
  expect(checkInvariants(events).map(formatViolation)).toEqual([]);
}

async function eventsOf(type: string): Promise<Record<string, unknown>[]> {
  const { events } = await readJsonlLog(session);
  return events.filter((event) => event.type === type).map((event) => event.data as Record<string, unknown>);
}

/** A real process that holds the session's lock until `release()`. */
async function holdSession(): Promise<{ pid: number; release: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', holderScript, session], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  holder = child;
  const lines = createInterface({ input: child.stdout! });
  const ready = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the holder exited (${code}) before holding the session`)));
  });
  lines.close();
  return {
    pid: Number(ready.split(' ')[1]),
    release: async () => {
      const exited = new Promise((done) => child.once('exit', done));
      child.stdin?.end();
      await exited;
    },
  };
}

describe('V05 the CLI defers approvals and answers them later', () => {
  it('V05 run --approve defer exits 3 and says how to answer; --resume with requests pending exits 3 and runs nothing; approvals lists; approve --deny --reason records (exit 2 naming a live holder); run --resume finishes the turn; log --check passes at each stage', async () => {
    const settings = await askingSettings();
    const batch = await file('batch.json', [
      {
        text: 'writing both',
        toolCalls: [
          { id: 'c1', name: 'Bash', arguments: { command: 'echo one >> proof.txt' } },
          { id: 'c2', name: 'Bash', arguments: { command: 'echo two >> proof.txt' } },
        ],
      },
    ]);
    const done = await file('done.json', [{ text: 'wrote what was approved' }]);
    const proof = path.join(dir, 'proof.txt');
    const hooks = ['--claude-settings', settings];

    // 1. The run defers the ask: exit 3, how to answer on stderr, nothing ran.
    const first = await seamchart(
      'run',
      'write the proof',
      '--model',
      `scripted:${batch}`,
      '--tools',
      'demo',
      '--cwd',
      dir,
      ...hooks,
      '--approve',
      'defer',
      '--session',
      session,
    );
    expect(first.code).toBe(3);
    expect(first.out).toContain('turn 1 suspended · 1 approval pending');
    expect(first.err).toContain('turn 1 is suspended on 1 deferred approval');
    expect(first.err).toContain('a1  Bash {"command":"echo one >> proof.txt"}');
    expect(first.err).toContain(
      `answer each with: seamchart approve ${session} REQUEST_ID [--deny] [--reason TEXT]`,
    );
    expect(first.err).toContain(`then continue with: seamchart run --resume --session ${session}`);
    expect(existsSync(proof)).toBe(false);
    // Bash is exclusive: the second call waits, not started.
    expect(await eventsOf('turn/suspended')).toEqual([
      { turn: 1, step: 1, pending: ['a1'], held: [], notStarted: ['c2'], contexts: [] },
    ]);
    await expectLogChecks();

    // 2. `approvals` lists the request: tool, arguments, reason, who asked, id.
    const listed = await seamchart('approvals', session);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain('turn 1 is suspended on 1 deferred approval:');
    expect(listed.out).toContain('a1  Bash {"command":"echo one >> proof.txt"}');
    expect(listed.out).toMatch(/reason: writing needs a human · asked by claude-code-hooks\.PreToolUse/);
    const json = await seamchart('approvals', session, '--json');
    expect(
      json.out
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([expect.objectContaining({ requestId: 'a1', callId: 'c1', tool: 'Bash', expired: false })]);

    // 3. --resume with the request pending: exit 3, the request printed, nothing run or written.
    const before = await readFile(session, 'utf8');
    const blocked = await seamchart(
      'run',
      '--resume',
      '--session',
      session,
      '--model',
      `scripted:${done}`,
      ...hooks,
    );
    expect(blocked.code).toBe(3);
    expect(blocked.err).toContain('turn 1 is still waiting for 1 approval; nothing was run');
    expect(blocked.err).toContain('a1  Bash');
    expect(blocked.out).toBe('');
    expect(await readFile(session, 'utf8')).toBe(before);

    // 4. A live process holds the session: approve exits 2 naming it, and writes nothing.
    const held = await holdSession();
    const refused = await seamchart('approve', session, 'a1', '--deny', '--reason', 'not the first one');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(`is held by process ${held.pid}`);
    expect(await readFile(session, 'utf8')).toBe(before);
    await held.release();

    // An unknown id is refused too.
    const unknown = await seamchart('approve', session, 'a9');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('no approval request "a9"');
    expect(await readFile(session, 'utf8')).toBe(before);

    // 5. No run holds it now: the denial is recorded, with its reason.
    const denied = await seamchart(
      'approve',
      session,
      'a1',
      '--deny',
      '--reason',
      'not the first one',
      '--by',
      'ops',
    );
    expect(denied.code).toBe(0);
    expect(denied.out).toContain('a1: rejected recorded');
    expect(denied.out).toContain('nothing is pending: continue with seamchart run --resume');
    expect(await eventsOf('approval/resolved')).toEqual([
      expect.objectContaining({
        requestId: 'a1',
        outcome: 'rejected',
        reason: 'not the first one',
        by: 'ops',
      }),
    ]);
    await expectLogChecks();

    // 6. --resume: c1 gets its denial, c2 now runs its policy, asks, and the step suspends again.
    const again = await seamchart(
      'run',
      '--resume',
      '--session',
      session,
      '--model',
      `scripted:${done}`,
      ...hooks,
      '--approve',
      'defer',
    );
    expect(again.code).toBe(3);
    expect(again.err).toContain('a2  Bash {"command":"echo two >> proof.txt"}');
    expect(existsSync(proof)).toBe(false);
    await expectLogChecks();
    const approved = await seamchart('approve', session, 'a2');
    expect(approved.code).toBe(0);
    expect(approved.out).toContain('a2: allowed-once recorded');

    // 7. --resume finishes the turn: only the approved call ran, the model was told why c1 did not.
    const last = await seamchart(
      'run',
      '--resume',
      '--session',
      session,
      '--model',
      `scripted:${done}`,
      ...hooks,
    );
    expect(last.code).toBe(0);
    expect(last.out).toContain('wrote what was approved');
    expect(await readFile(proof, 'utf8')).toBe('two\n');
    const results = (await eventsOf('tool/result')).map((result) => [
      result.callId,
      (result.error as { code?: string } | undefined)?.code ?? 'ok',
    ]);
    expect(results).toEqual([
      ['c1', 'DENIED'],
      ['c2', 'ok'],
    ]);
    const denial = (await eventsOf('tool/result'))[0]?.content as { text: string }[];
    expect(denial[0]?.text).toContain('not the first one');
    expect((await eventsOf('turn/end')).map((end) => end.reason)).toEqual([{ kind: 'completed' }]);
    expect(await eventsOf('turn/resumed')).toHaveLength(2);
    await expectLogChecks();
  }, 120_000);

  it('V05 a request past its --approve-expires-in resolves expired on resume: the call is denied, the turn completes', async () => {
    const settings = await askingSettings();
    const batch = await file('batch.json', [
      { toolCalls: [{ id: 'c1', name: 'Bash', arguments: { command: 'echo ran > proof.txt' } }] },
    ]);
    const done = await file('done.json', [{ text: 'nobody answered in time' }]);
    const hooks = ['--claude-settings', settings];
    const first = await seamchart(
      'run',
      'write the proof',
      '--model',
      `scripted:${batch}`,
      '--tools',
      'demo',
      '--cwd',
      dir,
      ...hooks,
      '--approve',
      'defer',
      '--approve-expires-in',
      '1s',
      '--session',
      session,
    );
    expect(first.code).toBe(3);
    const [request] = await eventsOf('approval/requested');
    const expiresAt = Date.parse(String(request?.expiresAt));
    expect(expiresAt).toBeGreaterThan(Date.now() - 60_000);
    await expectLogChecks();
    // Wait until the request's own expiry has passed (the clock, not a guessed duration).
    while (Date.now() <= expiresAt)
      await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now() + 5));

    const listed = await seamchart('approvals', session);
    expect(listed.out).toContain('(answered expired on resume)');
    // Listing is read only: nothing was written.
    expect(await eventsOf('approval/resolved')).toEqual([]);

    const resumed = await seamchart(
      'run',
      '--resume',
      '--session',
      session,
      '--model',
      `scripted:${done}`,
      ...hooks,
    );
    expect(resumed.code).toBe(0);
    expect(await eventsOf('approval/resolved')).toEqual([
      expect.objectContaining({ requestId: 'a1', outcome: 'expired', by: 'expiry' }),
    ]);
    expect(existsSync(path.join(dir, 'proof.txt'))).toBe(false);
    const [result] = await eventsOf('tool/result');
    expect(result).toMatchObject({ callId: 'c1', isError: true });
    expect((await eventsOf('turn/end')).map((end) => end.reason)).toEqual([{ kind: 'completed' }]);
    await expectLogChecks();
  }, 120_000);

  it('V05 --approve defer without --session exits 2 and writes nothing', async () => {
    const script = await file('script.json', [{ text: 'hi' }]);
    const result = await seamchart('run', 'hi', '--model', `scripted:${script}`, '--approve', 'defer');
    expect(result.code).toBe(2);
    expect(result.err).toContain('--approve defer needs --session FILE');
    expect(result.out).toBe('');
  });

  it('V05 approve on a session that is not suspended exits 2 and leaves the file as it was', async () => {
    const script = await file('script.json', [{ text: 'hi' }]);
    expect((await seamchart('run', 'hi', '--model', `scripted:${script}`, '--session', session)).code).toBe(
      0,
    );
    const before = await readFile(session, 'utf8');
    const listed = await seamchart('approvals', session);
    expect(listed.out).toContain('no turn is suspended');
    const refused = await seamchart('approve', session, 'a1');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('no approval request "a1"');
    expect(await readFile(session, 'utf8')).toBe(before);
  });
});
