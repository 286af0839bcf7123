import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.js';
import { checkInvariants, readJsonlLog } from '../../session/index.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

let dir: string;
let lines: string[];
const write = (line: string): void => {
  lines.push(line);
};

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'seamchart-cli-'));
  lines = [];
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
});
afterEach(async () => {
  vi.restoreAllMocks();
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
    const code = await main(['log', file, '--check'], write);
    expect(code).toBe(1);
    expect(lines.join('\n')).toMatch(/invariant 2 turn-enclosure violated at seq 0/);
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
    expect(await main(['log', file, '--check'], write)).toBe(0);
    expect(lines).toContain('invariants: ok');
    expect(lines.some((l) => l.includes('prompt/blocked rm — no'))).toBe(true);
  });

  it('log on a file with a malformed middle line exits 2 and leaves the file untouched', async () => {
    const file = path.join(dir, 'torn.jsonl');
    const body = `${[header(), '{not json', line(1, 'turn/start', {})].join('\n')}\n`;
    await writeFile(file, body);
    expect(await main(['log', file], write)).toBe(2);
    expect(await readFile(file, 'utf8')).toBe(body);
  });

  it('log --check on a torn file repairs in memory and says so', async () => {
    const file = path.join(dir, 'crash.jsonl');
    const body = `${[header(), line(0, 'turn/start', { turn: 1, trigger: { kind: 'message', source: { kind: 'user' } } }), '{"seq":1,"ty'].join('\n')}`;
    await writeFile(file, body);
    expect(await main(['log', file, '--check'], write)).toBe(0);
    expect(lines.some((l) => l.startsWith('repaired in memory'))).toBe(true);
    expect(await readFile(file, 'utf8')).toBe(body);
  });

  it('run with a scripted model writes a session that passes the invariants and exits 0', async () => {
    const session = path.join(dir, 'session.jsonl');
    const model = await script([{ text: 'one' }, { text: 'two' }]);
    const code = await main(
      ['run', 'hello', 'there', '--prompt', 'again', '--model', `scripted:${model}`, '--session', session],
      write,
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
      write,
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
      write,
    );
    expect(code).toBe(0);
    const { events } = await readJsonlLog(session);
    const turns = events.filter((e) => e.type === 'turn/start').map((e) => (e.data as { turn: number }).turn);
    expect(turns).toEqual([1, 2]);
    expect(checkInvariants(events)).toEqual([]);
  });

  it('run exits 1 when a turn ends in error', async () => {
    const model = await script([{ error: { message: 'overloaded', code: 'RATE_LIMIT' } }]);
    expect(await main(['run', 'hi', '--model', `scripted:${model}`], write)).toBe(1);
  });

  it('bad input exits 2 with one line and writes nothing', async () => {
    const session = path.join(dir, 'never.jsonl');
    expect(await main(['run', 'hi', '--nope'], write)).toBe(2);
    expect(
      await main(
        ['run', 'hi', '--model', `scripted:${path.join(dir, 'missing.json')}`, '--session', session],
        write,
      ),
    ).toBe(2);
    expect(await main(['run', 'hi', '--model', `scripted:${await script([{ nonsense: 1 }])}`], write)).toBe(
      2,
    );
    expect(await main(['frobnicate'], write)).toBe(2);
    await expect(readFile(session)).rejects.toThrow();
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
    expect(stdout).toMatch(/tool\/result c2 error DENIED/);
    expect(stdout).toMatch(/prompt-submit decided by demo-policy\.rewritePrompt/);
    expect(stdout).toMatch(/context\/message note: shell ran in a sandbox/);
  }, 60_000);
});
