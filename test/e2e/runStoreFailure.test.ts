// storage.md "A failed write": when the session store fails, `seamchart run` exits 1 and names the cause.
// The fault is real: the CLI runs under `ulimit -f` (RLIMIT_FSIZE), so the kernel refuses the write that
// would grow the session file past the limit (a short write, then EFBIG) — as a full disk or quota would.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkInvariants, readJsonlLog } from '../../session/index.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'dist/cli/bin.js');
// `ulimit -f` counts 512-byte blocks in POSIX sh.
const LIMIT_BLOCKS = 16;
const LIMIT_BYTES = LIMIT_BLOCKS * 512;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'seamchart-run-store-failure-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[], fileLimitBlocks?: number) {
  const quoted = [process.execPath, bin, ...args].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  const limit = fileLimitBlocks === undefined ? '' : `ulimit -f ${fileLimitBlocks} && `;
  try {
    const { stdout, stderr } = await run('/bin/sh', ['-c', `${limit}exec ${quoted}`], {
      cwd: dir,
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('seamchart run when the session store fails', () => {
  it('a write refused by the file size limit: exit 1, the cause on stderr, a file that loads and resumes', async () => {
    const script = path.join(dir, 'script.json');
    // The reply's assistant/message line (20 KB) cannot fit under the limit; the lines before it can.
    writeFileSync(script, JSON.stringify([{ text: 'x'.repeat(20_000) }, { text: 'resumed' }]));
    const session = path.join(dir, 's.jsonl');
    const failed = await cli(
      ['run', 'hello', '--model', `scripted:${script}`, '--session', session],
      LIMIT_BLOCKS,
    );

    expect(failed.code).toBe(1);
    const lastLine = failed.stderr.trim().split('\n').at(-1);
    expect(lastLine).toMatch(
      /^seamchart: the session store failed, the run stopped: Cannot write event seq \d+ \(assistant\/message\) to session file .*s\.jsonl \(EFBIG\); the partial line was removed and the store accepts no further writes \(EFBIG: file too large, write\); .*s\.jsonl ends where the failed write began — `seamchart run --resume --session .*s\.jsonl` repairs it$/,
    );
    // The open turn is the store's failure, not reported as a broken invariant.
    expect(failed.stderr).not.toMatch(/invariant/);

    // The file: whole lines only, under the limit, ending with the last event written before the failure.
    const text = readFileSync(session, 'utf8');
    expect(statSync(session).size).toBeLessThanOrEqual(LIMIT_BYTES);
    expect(text.endsWith('\n')).toBe(true);
    const types = text
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line).type);
    expect(types).toEqual(['inbox/accepted', 'turn/start', 'user/message', 'step/start']);
    const read = await readJsonlLog(session);
    expect(read.writer).toBeUndefined();
    expect(read.repairs).toEqual([
      'step/end (turn 1, step 1): closed the open step',
      'turn/end (turn 1): closed the open turn as interrupted',
    ]);

    // Without the limit, --resume repairs the file (saying so) and the next turn completes.
    const resumed = await cli([
      'run',
      'again',
      '--model',
      `scripted:${script}`,
      '--session',
      session,
      '--resume',
    ]);
    expect(resumed.stderr).toContain('turn/end (turn 1): closed the open turn as interrupted');
    const after = await readJsonlLog(session);
    expect(checkInvariants(after.events)).toEqual([]);
    expect(
      after.events
        .filter((event) => event.type === 'turn/end')
        .map((event) => (event.data as { reason: unknown }).reason),
    ).toMatchObject([{ kind: 'interrupted' }, { kind: 'completed' }]);
  }, 60_000);

  it('a write refused while the prompt is accepted: exit 1 with the cause, and a session file of just its header', async () => {
    const script = path.join(dir, 'script.json');
    writeFileSync(script, JSON.stringify([{ text: 'never asked' }]));
    const session = path.join(dir, 'tiny.jsonl');
    // One 512-byte block holds the header line but not the prompt's inbox/accepted line.
    const prompt = 'p'.repeat(1000);
    const failed = await cli(
      ['run', prompt, '--model', `scripted:${script}`, '--session', session, '--json'],
      1,
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim().split('\n').at(-1)).toMatch(
      /^seamchart: the session store failed, the run stopped: Cannot write event seq 0 \(inbox\/accepted\) .*\(EFBIG\)/,
    );
    // Nothing after the header was accepted, so nothing is lost: the file loads with no events.
    expect(failed.stdout).toBe('');
    const read = await readJsonlLog(session);
    expect(read.events).toEqual([]);
    expect(read.repairs).toEqual([]);
  }, 60_000);
});
