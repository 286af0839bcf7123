import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.js';
import { checkInvariants, readJsonlLog } from '../../session/index.js';
import { captureIO } from './support/captureIO.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

let dir: string;
let io: ReturnType<typeof captureIO>;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'seamchart-cli-'));
  io = captureIO();
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function script(steps: unknown[]): Promise<string> {
  const file = path.join(dir, 'script.json');
  await writeFile(file, JSON.stringify(steps));
  return file;
}

function header(): string {
  return JSON.stringify({ seamchart: 1, sessionId: 's1', created: new Date(0).toISOString(), cwd: dir });
}
function line(seq: number, type: string, data: unknown): string {
  return JSON.stringify({ seq, type, data, time: new Date(0).toISOString() });
}

describe('seamchart CLI', () => {
  it('G03 log --check exits 1 on a log that violates an invariant and names it', async () => {
    const file = path.join(dir, 'bad.jsonl');
    // A user/message before any turn opened breaks turn enclosure.
    const body = [
      header(),
      line(0, 'user/message', { content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' } }),
      line(1, 'turn/start', { turn: 1, trigger: { kind: 'message', source: { kind: 'user' } } }),
      line(2, 'turn/end', { turn: 1, reason: { kind: 'aborted' } }),
    ].join('\n');
    await writeFile(file, `${body}\n`);
    const code = await main(['log', file, '--check'], io);
    expect(code).toBe(1);
    expect(io.out()).toMatch(/invariant 2 turn-enclosure violated at seq 0/);
  });

  it('G03 log --check exits 0 and prints the events of a valid log', async () => {
    const file = path.join(dir, 'good.jsonl');
    const body = [
      header(),
      line(0, 'turn/start', { turn: 1, trigger: { kind: 'message', source: { kind: 'user' } } }),
      line(1, 'prompt/blocked', {
        content: [{ type: 'text', text: 'rm' }],
        source: { kind: 'user' },
        reason: 'no',
      }),
      line(2, 'turn/end', { turn: 1, reason: { kind: 'rejected', reason: 'no' } }),
    ].join('\n');
    await writeFile(file, `${body}\n`);
    expect(await main(['log', file, '--check'], io)).toBe(0);
    expect(io.lines()).toContain('invariants: ok');
    expect(io.lines().some((l) => l.includes('prompt/blocked rm — no'))).toBe(true);
  });

  it('log on a file with a malformed middle line exits 2 and leaves the file untouched', async () => {
    const file = path.join(dir, 'torn.jsonl');
    const body = `${[header(), '{not json', line(1, 'turn/start', {})].join('\n')}\n`;
    await writeFile(file, body);
    expect(await main(['log', file], io)).toBe(2);
    expect(await readFile(file, 'utf8')).toBe(body);
  });

  it('log --check on a torn file repairs in memory and says so', async () => {
    const file = path.join(dir, 'crash.jsonl');
    const body = `${[header(), line(0, 'turn/start', { turn: 1, trigger: { kind: 'message', source: { kind: 'user' } } }), '{"seq":1,"ty'].join('\n')}`;
    await writeFile(file, body);
    expect(await main(['log', file, '--check'], io)).toBe(0);
    expect(io.lines().some((l) => l.startsWith('repaired in memory'))).toBe(true);
    expect(await readFile(file, 'utf8')).toBe(body);
  });

  it('run with a scripted model writes a session that passes the invariants and exits 0', async () => {
    const session = path.join(dir, 'session.jsonl');
    const model = await script([{ text: 'one' }, { text: 'two' }]);
    const code = await main(
      ['run', 'hello', 'there', '--prompt', 'again', '--model', `scripted:${model}`, '--session', session],
      io,
    );
    expect(code).toBe(0);
    const { events } = await readJsonlLog(session);
    expect(checkInvariants(events)).toEqual([]);
    const prompts = events.filter((e) => e.type === 'user/message').map((e) => JSON.stringify(e.data));
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).toContain('hello there');
    expect(prompts[1]).toContain('again');
  });

  it('run --resume continues the stored session with the next turn number', async () => {
    const session = path.join(dir, 'session.jsonl');
    await main(
      ['run', 'first', '--model', `scripted:${await script([{ text: 'a' }])}`, '--session', session],
      io,
    );
    const code = await main(
      [
        'run',
        'second',
        '--model',
        `scripted:${await script([{ text: 'b' }])}`,
        '--session',
        session,
        '--resume',
      ],
      io,
    );
    expect(code).toBe(0);
    const { events } = await readJsonlLog(session);
    const turns = events.filter((e) => e.type === 'turn/start').map((e) => (e.data as { turn: number }).turn);
    expect(turns).toEqual([1, 2]);
    expect(checkInvariants(events)).toEqual([]);
  });

  it('run exits 1 when a turn ends in error', async () => {
    const model = await script([{ error: { message: 'overloaded', code: 'RATE_LIMIT' } }]);
    expect(await main(['run', 'hi', '--model', `scripted:${model}`], io)).toBe(1);
  });

  it('bad input exits 2 with one line and writes nothing', async () => {
    const session = path.join(dir, 'never.jsonl');
    expect(await main(['run', 'hi', '--nope'], io)).toBe(2);
    expect(
      await main(
        ['run', 'hi', '--model', `scripted:${path.join(dir, 'missing.json')}`, '--session', session],
        io,
      ),
    ).toBe(2);
    expect(await main(['run', 'hi', '--model', `scripted:${await script([{ nonsense: 1 }])}`], io)).toBe(2);
    expect(await main(['frobnicate'], io)).toBe(2);
    await expect(readFile(session)).rejects.toThrow();
  });
});

describe('seamchart run with hooks and inspection', () => {
  it('a malformed hooks config exits 2 naming the JSON path, and no session file is written', async () => {
    const settings = path.join(dir, 'settings.json');
    await writeFile(
      settings,
      JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 42 }] }] } }),
    );
    const session = path.join(dir, 'session.jsonl');
    const model = await script([{ text: 'hi' }]);
    expect(
      await main(
        ['run', 'hi', '--model', `scripted:${model}`, '--claude-settings', settings, '--session', session],
        io,
      ),
    ).toBe(2);
    expect(io.err()).toMatch(/hooks\.PreToolUse\[0\]\.hooks\[0\]\.command/);
    await expect(readFile(session)).rejects.toThrow();
  });

  it('--claude-settings runs the hooks: a PreToolUse exit 2 denies the Bash call', async () => {
    const settings = path.join(dir, 'settings.json');
    const hook = path.join(dir, 'deny.sh');
    await writeFile(hook, 'cat > /dev/null\necho "no shell today" >&2\nexit 2\n');
    await writeFile(
      settings,
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `sh ${hook}` }] }] },
      }),
    );
    const session = path.join(dir, 'session.jsonl');
    const model = await script([
      { toolCalls: [{ id: 'c1', name: 'Bash', arguments: { command: 'ls' } }] },
      { text: 'ok' },
    ]);
    const code = await main(
      [
        'run',
        'go',
        '--model',
        `scripted:${model}`,
        '--claude-settings',
        settings,
        '--tools',
        'demo',
        '--cwd',
        dir,
        '--session',
        session,
      ],
      io,
    );
    expect(code).toBe(0);
    const { events } = await readJsonlLog(session);
    const result = events.find((e) => e.type === 'tool/result')?.data as {
      isError: boolean;
      content: { text: string }[];
    };
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toContain('no shell today');
    expect(events.some((e) => e.type === 'hook/invoked')).toBe(true);
    expect(checkInvariants(events)).toEqual([]);
  });

  it('--inspect-log writes self-describing XState inspection events as JSONL', async () => {
    const file = path.join(dir, 'inspect.jsonl');
    const model = await script([{ text: 'hi' }]);
    expect(await main(['run', 'hi', '--model', `scripted:${model}`, '--inspect-log', file], io)).toBe(0);
    const records = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; definition?: unknown });
    const actors = records.filter((r) => r.type === '@xstate.actor');
    expect(actors.some((r) => JSON.stringify(r.definition).includes('"claiming"'))).toBe(true);
    expect(records.some((r) => r.type === '@xstate.snapshot')).toBe(true);
  });
});

describe('seamchart visualize', () => {
  it('prints the Mermaid diagram of one machine with its states', async () => {
    expect(await main(['visualize', '--machine', 'toolCall'], io)).toBe(0);
    const text = io.out();
    expect(text.startsWith('stateDiagram-v2')).toBe(true);
    for (const state of [
      'sealing',
      'preExecute',
      'awaitingApproval',
      'guards',
      'dispatching',
      'settled',
      'postExecute',
      'finalizing',
      'notifying',
      'done',
    ]) {
      expect(text).toContain(`as toolCall_${state}`);
    }
  });

  it('writes one file per machine into --out', async () => {
    const out = path.join(dir, 'diagrams');
    expect(await main(['visualize', '--format', 'dot', '--out', out], io)).toBe(0);
    for (const name of ['agent', 'turn', 'toolBatch', 'toolCall']) {
      expect(await readFile(path.join(out, `${name}.dot`), 'utf8')).toMatch(/^digraph/);
    }
  });

  it('an unknown machine or format exits 2', async () => {
    expect(await main(['visualize', '--machine', 'nope'], io)).toBe(2);
    expect(await main(['visualize', '--format', 'png'], io)).toBe(2);
  });
});

describe('npm start', () => {
  it('G04 runs the demo offline and ends with "invariants: ok"', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'cli/demo.ts'], {
      cwd: root,
      timeout: 60_000,
    });
    const out = stdout.trim().split('\n');
    expect(out.at(-1)).toBe('invariants: ok');
    // The demo prints through the transcript renderer of `seamchart run`, not an event dump.
    expect(stdout).toContain('❯ Tidy up the scratch directory (answer briefly)');
    expect(stdout).not.toMatch(/tool\/result|assistant\/message/);
    // The Claude Code PreToolUse hook blocks the destructive Bash call; the transcript says who decided.
    expect(stdout).toMatch(
      /● Bash\(rm -rf \.\/\*\)\n.*\n\s+⎿ denied by claude-code-hooks\.PreToolUse: blocked by hook: rm -rf/,
    );
    // The native plugin rewrote the prompt and is named as the decider.
    expect(stdout).toMatch(/agent\/prompt-submit: allow, decided by brief-answers\.rewritePrompt/);
    // The PostToolUse hook's context lands after the batch's last result.
    expect(stdout).toMatch(/⎿ denied by [^\n]*\n\s+↳ PostToolUse hook adds: hook: say which file changed/);
    // The Stop hook continues exactly once.
    expect(stdout.match(/Stop hook steers: before stopping/g)).toHaveLength(1);
    expect(stdout).toMatch(/── turn 1 completed · 4 steps/);
  }, 60_000);
});
