// docs/approvals.md's example, run as written: one process asks and exits suspended, a web server in another process
// lists the request and answers it, and the turn finishes in the server.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkInvariants, formatViolation, readJsonlLog } from '../../session/index.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const example = path.join(root, 'examples', 'approval-server');

let dir: string;
let server: ChildProcess | undefined;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'seamchart-approval-server-'));
});
afterEach(async () => {
  if (server && server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((done) => server?.once('exit', done));
    server.kill('SIGTERM');
    await exited;
  }
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the example server on a free port; resolves its base URL. */
async function startServer(): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(example, 'server.ts'), dir], {
    cwd: root,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  server = child;
  const lines = createInterface({ input: child.stdout! });
  const line = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
  });
  return /listening on (http:\/\/\S+)/.exec(line)![1]!;
}

describe('docs/approvals.md: a server answers an approval from another process', () => {
  it('the example: ask.ts exits with the turn suspended; server.ts lists the request, refuses a stale answer, records the approval and finishes the turn', async () => {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', path.join(example, 'ask.ts'), dir, 'release-1'],
      { cwd: root, timeout: 60_000 },
    );
    const told = JSON.parse(stdout.trim()) as { session: string; requestId: string; argsHash: string };
    expect(told).toMatchObject({
      session: 'release-1',
      requestId: 'a1',
      tool: 'deploy',
      arguments: { service: 'web' },
    });
    expect(stderr).toContain('session release-1 is suspended');
    expect(existsSync(path.join(dir, 'deployments.log'))).toBe(false);

    const base = await startServer();
    const listed = (await (await fetch(`${base}/sessions/release-1/approvals`)).json()) as {
      requestId: string;
    }[];
    expect(listed).toEqual([
      expect.objectContaining({
        requestId: 'a1',
        reason: 'deploys need a second pair of eyes',
        expired: false,
      }),
    ]);
    const post = (body: unknown) =>
      fetch(`${base}/sessions/release-1/approvals/a1`, { method: 'POST', body: JSON.stringify(body) });

    const stale = await post({ outcome: 'allowed-once', argsHash: '0'.repeat(64) });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ code: 'APPROVAL_STALE' });
    expect(existsSync(path.join(dir, 'deployments.log'))).toBe(false);

    const approved = await post({ outcome: 'allowed-once', by: 'alice', argsHash: told.argsHash });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({
      resolution: { requestId: 'a1', outcome: 'allowed-once', by: 'alice' },
      status: 'idle',
      turnEnd: { turn: 1, reason: { kind: 'completed' } },
    });
    expect(readFileSync(path.join(dir, 'deployments.log'), 'utf8')).toBe('web\n');
    expect(await (await fetch(`${base}/sessions/release-1/approvals`)).json()).toEqual([]);

    const { events } = await readJsonlLog(path.join(dir, 'release-1.jsonl'));
    expect(checkInvariants(events, { atRest: true }).map(formatViolation)).toEqual([]);
  }, 120_000);
});
