import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { checkInvariants, readJsonlLog } from '../../session/index.js';

const exec = promisify(execFile);
const bin = path.resolve(import.meta.dirname, '../../dist/cli/bin.js');
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'seamchart-pipe-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('a reader that closes early (| head) ends the run quietly and the session still completes', async () => {
  // Far more than a pipe buffer, so the CLI really writes into a closed pipe.
  const words = Array.from({ length: 40_000 }, (_, i) => `word${i}`).join(' ');
  await writeFile(path.join(dir, 'script.json'), JSON.stringify([{ text: words }]));
  const command = `"${process.execPath}" "${bin}" run hello --model scripted:script.json --session s.jsonl 2>err.txt | head -c 20 >/dev/null; echo "exit=\${PIPESTATUS[0]}"; cat err.txt`;
  const { stdout } = await exec('bash', ['-c', command], { cwd: dir });
  expect(stdout).toBe('exit=0\n');
  const { events } = await readJsonlLog(path.join(dir, 's.jsonl'));
  expect(
    events
      .filter((e) => e.type === 'turn/end')
      .map((e) => (e.data as { reason: { kind: string } }).reason.kind),
  ).toEqual(['completed']);
  expect(checkInvariants(events)).toEqual([]);
});
