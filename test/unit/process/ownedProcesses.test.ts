import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isGone } from '../../bridges/harness.js';

const fixture = path.join(import.meta.dirname, 'fixtures/killOwned.ts');

describe('killOwnedProcesses', () => {
  it('kills every process this one started, in or out of its group, even one ignoring SIGTERM', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'owned-'));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', fixture, dir], {
      timeout: 15_000,
    });
    const { pids, killed } = JSON.parse(stdout) as { pids: number[]; killed: number };
    expect(pids).toHaveLength(3);
    // The shell, its grouped child and its setsid child (and nothing it did not start).
    expect(killed).toBe(3);
    expect(pids.filter((pid) => !isGone(pid))).toEqual([]);
  });
});
