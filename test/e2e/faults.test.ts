import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.js';
import {
  createAgent,
  createJsonlStore,
  createSeams,
  createToolRegistry,
  scriptedModel,
} from '../../index.js';
import { checkInvariants, readJsonlLog } from '../../session/index.js';
import { captureIO } from './support/captureIO.js';
import { quote, Terminal } from './support/terminal.js';

// The built CLI (test/e2e/support/buildOnce.ts builds dist/ before the suite), run as a person runs it.
const bin = path.resolve(import.meta.dirname, '../../dist/cli/bin.js');
const seamchart = `${quote(process.execPath)} ${quote(bin)}`;

let dir: string;
const terminals: Terminal[] = [];
const children: ChildProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'seamchart-faults-'));
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await Promise.all(terminals.splice(0).map((terminal) => terminal.close()));
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: unknown): Promise<string> {
  const target = path.join(dir, name);
  await writeFile(target, typeof content === 'string' ? content : JSON.stringify(content));
  return target;
}

async function session(name = 'session.jsonl') {
  const { events, repairs } = await readJsonlLog(path.join(dir, name));
  return { events, repairs, violations: checkInvariants(events) };
}

function turnEnds(events: readonly { type: string; data: unknown }[]): string[] {
  return events
    .filter((e) => e.type === 'turn/end')
    .map((e) => (e.data as { reason: { kind: string } }).reason.kind);
}

/** The built CLI as a child process with piped stdio (no terminal). */
function spawnCli(args: readonly string[]): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [bin, ...args], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return Object.assign(child, { output: () => output });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Polls until the session file shows `type` (the run is inside that phase). */
async function waitForEvent(type: string, name = 'session.jsonl', timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await readFile(path.join(dir, name), 'utf8').catch(() => '');
    if (text.includes(`"type":"${type}"`)) return;
    if (Date.now() > deadline) throw new Error(`the session never showed ${type}:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('Y01 the CLI never exits 0 with a turn still open', () => {
  it('Y01 a hanging model step keeps the run alive until SIGINT; then exit 130 and the turn is aborted', async () => {
    const script = await file('script.json', [{ hang: true }]);
    const child = spawnCli([
      'run',
      'wait for me',
      '--model',
      `scripted:${script}`,
      '--session',
      'session.jsonl',
    ]);
    await waitForEvent('step/start');
    // Long enough for an empty event loop to have drained many times over.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(child.exitCode).toBeNull();
    child.kill('SIGINT');
    expect(await exitOf(child)).toBe(130);
    const { events, repairs, violations } = await session();
    expect(repairs).toEqual([]);
    expect(turnEnds(events)).toEqual(['aborted']);
    expect(violations).toEqual([]);
  });

  it('Y01 the same in a pseudo-terminal: Ctrl-C ends the hanging step, exit 130', async () => {
    const script = await file('script.json', [{ hang: true }]);
    const terminal = await Terminal.start(
      `${seamchart} run 'wait for me' --model scripted:${quote(script)} --session session.jsonl`,
      { cwd: dir, env: { NO_COLOR: '1' } },
    );
    terminals.push(terminal);
    await waitForEvent('step/start');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(existsSync(path.join(dir, 'session.jsonl'))).toBe(true);
    await terminal.keys('C-c');
    expect(await terminal.exitCode()).toBe(130);
    const { events, violations } = await session();
    expect(turnEnds(events)).toEqual(['aborted']);
    expect(violations).toEqual([]);
  });

  it('Y01 --approve ask with stdin closed denies the call and the run goes on to its end', async () => {
    const hook = await file(
      'hook.sh',
      'cat > /dev/null\necho \'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"needs a human"}}\'\n',
    );
    const settings = await file('settings.json', {
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `sh ${hook}` }] }] },
    });
    const script = await file('script.json', [
      { toolCalls: [{ id: 'c1', name: 'Bash', arguments: { command: 'echo ran > proof.txt' } }] },
      { text: 'Finished without it.' },
    ]);
    const child = spawnCli([
      'run',
      'write the proof',
      '--model',
      `scripted:${script}`,
      '--tools',
      'demo',
      '--claude-settings',
      settings,
      '--approve',
      'ask',
      '--session',
      'session.jsonl',
    ]);
    child.stdin?.end();
    expect(await exitOf(child)).toBe(0);
    expect(existsSync(path.join(dir, 'proof.txt'))).toBe(false);
    const { events, violations } = await session();
    const result = events.find((e) => e.type === 'tool/result')?.data as {
      isError: boolean;
      content: { text: string }[];
    };
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toContain('standard input closed');
    expect(turnEnds(events)).toEqual(['completed']);
    expect(violations).toEqual([]);
  });
});

describe('Y09 --resume says what opening the session did', () => {
  it('Y09 a clean file with a pending item: re-queued, not "repaired", no .bak', async () => {
    const target = path.join(dir, 'session.jsonl');
    const agent = createAgent({
      seams: createSeams(),
      tools: createToolRegistry(),
      model: scriptedModel([]),
      store: await createJsonlStore(target),
    });
    agent.queue('run me later');
    await agent.dispose();
    const before = await readFile(target, 'utf8');
    const script = await file('script.json', [{ text: 'later, done' }, { text: 'next, done' }]);
    const io = captureIO();
    const code = await main(
      ['run', 'next', '--model', `scripted:${script}`, '--session', target, '--resume'],
      io,
    );
    expect(code).toBe(0);
    expect(io.err()).not.toMatch(/repaired|\.bak/);
    expect(io.err()).toContain('re-queued');
    expect(io.err()).toMatch(/m1 is re-queued on resume \(never claimed\)/);
    expect(existsSync(`${target}.bak`)).toBe(false);
    const { events } = await readJsonlLog(target);
    expect((await readFile(target, 'utf8')).startsWith(before)).toBe(true);
    expect(checkInvariants(events)).toEqual([]);
    expect(turnEnds(events)).toEqual(['completed', 'completed']);
  });

  it('Y09 a torn file is "repaired", naming the backup actually written (.bak, then .bak.1)', async () => {
    const target = path.join(dir, 'session.jsonl');
    const script = await file('script.json', [{ text: 'one' }, { text: 'two' }]);
    expect(
      await main(['run', 'first', '--model', `scripted:${script}`, '--session', target], captureIO()),
    ).toBe(0);
    for (const backup of ['session.jsonl.bak', 'session.jsonl.bak.1']) {
      await writeFile(target, `${await readFile(target, 'utf8')}{"seq":99,"ty`);
      const io = captureIO();
      const code = await main(
        ['run', 'again', '--model', `scripted:${script}`, '--session', target, '--resume'],
        io,
      );
      expect(code).toBe(0);
      expect(io.err()).toContain(
        `repaired ${target} before resuming (the original is kept as ${path.join(dir, backup)})`,
      );
      expect(io.err()).toMatch(/torn last line/);
      expect(existsSync(path.join(dir, backup))).toBe(true);
    }
    expect(checkInvariants((await readJsonlLog(target)).events)).toEqual([]);
  });
});

describe('Y04 Ctrl-C during a slow prompt hook', () => {
  it('Y04 the cancelled prompt is discarded and the next --resume never runs it', async () => {
    const hook = await file('prompt-hook.sh', 'cat > /dev/null\necho $$ > hook.pid\nsleep 60\n');
    const settings = await file('settings.json', {
      hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `sh ${hook}` }] }] },
    });
    const script = await file('script.json', [{ text: 'ran' }]);
    const terminal = await Terminal.start(
      `${seamchart} run 'rm -rf the project' --model scripted:${quote(script)} --claude-settings ${quote(settings)} --session session.jsonl`,
      { cwd: dir, env: { NO_COLOR: '1' } },
    );
    terminals.push(terminal);
    for (let i = 0; i < 400 && !existsSync(path.join(dir, 'hook.pid')); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await terminal.keys('C-c');
    expect(await terminal.exitCode()).toBe(130);
    const first = await session();
    expect(first.violations).toEqual([]);
    expect(turnEnds(first.events)).toEqual(['aborted']);
    expect(first.events.find((e) => e.type === 'inbox/discarded')?.data).toEqual({
      ids: ['m1'],
      cause: 'cancel',
    });
    const io = captureIO();
    const resumed = await main(
      [
        'run',
        'list the files',
        '--model',
        `scripted:${script}`,
        '--session',
        path.join(dir, 'session.jsonl'),
        '--resume',
      ],
      io,
    );
    expect(resumed).toBe(0);
    expect(io.err()).not.toContain('re-queued');
    const { events, violations } = await session();
    expect(violations).toEqual([]);
    const prompts = events
      .filter((e) => e.type === 'user/message')
      .map((e) => (e.data as { content: { text: string }[] }).content[0]?.text);
    expect(prompts).toEqual(['list the files']);
  });
});

/** Whether a pid is a live (non-zombie) process. */
async function alive(pid: number): Promise<boolean> {
  const status = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return status !== undefined && !/^\d+ \(.*\) Z/.test(status);
}

async function pidIn(file: string, timeoutMs = 20_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (text.endsWith('\n')) return Number(text.trim());
    if (Date.now() > deadline) throw new Error(`${file} was never written`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A SessionStart hook that records its pid and its background child's, then waits a minute. */
async function waitingSessionStart(where: string): Promise<string> {
  const hook = path.join(where, 'session-start.sh');
  await writeFile(hook, 'cat > /dev/null\necho $$ > hook.pid\nsleep 60 &\necho $! > child.pid\nwait\n');
  const settings = path.join(where, 'settings.json');
  await writeFile(
    settings,
    JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `sh ${hook}` }] }] } }),
  );
  return settings;
}

describe('Y06 Ctrl-C during a SessionStart hook', () => {
  it('Y06 Ctrl-C ends the waiting hook at once, kills its process group, exit 130', async () => {
    const settings = await waitingSessionStart(dir);
    const script = await file('script.json', [{ text: 'never' }]);
    const terminal = await Terminal.start(
      `${seamchart} run 'hello' --model scripted:${quote(script)} --claude-settings ${quote(settings)} --session session.jsonl`,
      { cwd: dir, env: { NO_COLOR: '1' } },
    );
    terminals.push(terminal);
    const hookPid = await pidIn(path.join(dir, 'hook.pid'));
    const childPid = await pidIn(path.join(dir, 'child.pid'));
    const pressed = Date.now();
    await terminal.keys('C-c');
    // cancelGraceMs is 2 s by default; the 59 s wait of the probe is far beyond this bound.
    expect(await terminal.exitCode(10_000)).toBe(130);
    expect(Date.now() - pressed).toBeLessThan(10_000);
    expect(await alive(hookPid)).toBe(false);
    expect(await alive(childPid)).toBe(false);
    const { events, violations } = await session();
    expect(violations).toEqual([]);
    expect(turnEnds(events)).toEqual([]);
  });

  it('Y06 50 runs of a double Ctrl-C (SIGINT twice) during the hook and the shutdown leave no process behind', async () => {
    const script = await file('script.json', [{ text: 'never' }]);
    const trial = async (index: number): Promise<void> => {
      const where = path.join(dir, `trial-${index}`);
      await mkdir(where);
      const settings = await waitingSessionStart(where);
      const child = spawn(
        process.execPath,
        [
          bin,
          'run',
          'hello',
          '--model',
          `scripted:${script}`,
          '--claude-settings',
          settings,
          '--session',
          'session.jsonl',
        ],
        { cwd: where, stdio: 'ignore' },
      );
      children.push(child);
      const hookPid = await pidIn(path.join(where, 'hook.pid'));
      const childPid = await pidIn(path.join(where, 'child.pid'));
      child.kill('SIGINT');
      // The second one lands at a different moment of the shutdown in each trial.
      await new Promise((resolve) => setTimeout(resolve, (index % 10) * 5));
      child.kill('SIGINT');
      expect([130, null]).toContain(await exitOf(child));
      for (const pid of [hookPid, childPid]) {
        for (let i = 0; i < 100 && (await alive(pid)); i++) await new Promise((r) => setTimeout(r, 20));
        expect(await alive(pid), `trial ${index}: pid ${pid} outlived the run`).toBe(false);
      }
      expect(checkInvariants((await readJsonlLog(path.join(where, 'session.jsonl'))).events)).toEqual([]);
    };
    for (let batch = 0; batch < 50; batch += 5)
      await Promise.all([0, 1, 2, 3, 4].map((offset) => trial(batch + offset)));
  }, 300_000);
});

describe('Y11 a session too big for memory', () => {
  it('Y11 loading it in a process with a 64 MB heap is a SessionLoadError naming the size and what to do', async () => {
    const target = path.join(dir, 'big.jsonl');
    const text = 'x'.repeat(1024 * 1024);
    const lines = [
      JSON.stringify({ seamchart: 1, sessionId: 'big', created: new Date(0).toISOString(), cwd: dir }),
    ];
    for (let i = 1; i <= 40; i++) {
      const data = {
        id: `m${i}`,
        content: [{ type: 'text', text }],
        source: { kind: 'user' },
        steering: false,
        wakeup: false,
      };
      lines.push(
        JSON.stringify({ seq: i - 1, type: 'inbox/accepted', data, time: new Date(0).toISOString() }),
      );
    }
    await writeFile(target, `${lines.join('\n')}\n`);
    const dist = path.resolve(import.meta.dirname, '../../dist/index.js');
    const loader = `import(${JSON.stringify(dist)}).then((m) => m.readJsonlLog(${JSON.stringify(target)})).then(
      () => console.log(JSON.stringify({ loaded: true })),
      (e) => console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message })))`;
    const child = spawn(process.execPath, ['--max-old-space-size=64', '--input-type=module', '-e', loader], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    expect(await exitOf(child)).toBe(0);
    const result = JSON.parse(out) as { name: string; code: string; message: string };
    expect(result).toMatchObject({ name: 'SessionLoadError', code: 'TOO_LARGE' });
    expect(result.message).toMatch(/big\.jsonl is 41 MB; loading its events needs about 161 MB of memory/);
    expect(result.message).toMatch(/NODE_OPTIONS=--max-old-space-size=\d+/);
    // The CLI maps it to bad input (exit 2) with the same words, and leaves the file as it was.
    const cli = spawn(process.execPath, ['--max-old-space-size=64', bin, 'log', target, '--check'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    cli.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    expect(await exitOf(cli)).toBe(2);
    expect(err).toContain('is 41 MB; loading its events needs about');
  }, 60_000);
});
