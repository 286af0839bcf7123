import { describe, expect, it } from 'vitest';
import { runProcess } from '../../../process/index.js';
import { isGone, waitUntil } from '../../bridges/harness.js';

const sh = (script: string, extra: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
  runProcess({
    file: 'sh',
    args: ['-c', script],
    cwd: '.',
    timeoutMs: extra.timeoutMs ?? 10_000,
    killGraceMs: 200,
    ...(extra.signal ? { signal: extra.signal } : {}),
  });

const pidsOf = (stdout: string): number[] => stdout.trim().split(/\s+/).filter(Boolean).map(Number);

describe('runProcess', () => {
  it('R02 settles when the direct child exits although background children keep stdout open, and kills them', async () => {
    const started = performance.now();
    const run = await sh('setsid sleep 60 & echo $!; sleep 60 & echo $!; echo answer >&2');
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(run).toMatchObject({ outcome: 'exited', exitCode: 0, stderr: 'answer\n' });
    expect(run.notes).toEqual(['background processes kept the output open after the command exited; killed']);
    const pids = pidsOf(run.stdout);
    expect(pids).toHaveLength(2);
    // Every process it started is gone by the time the run settled.
    expect(pids.filter((pid) => !isGone(pid))).toEqual([]);
  });

  it('R02 a background child that closed its output is killed too when the command settles', async () => {
    const run = await sh('sleep 60 >/dev/null 2>&1 & echo $!; setsid sleep 60 >/dev/null 2>&1 & echo $!');
    expect(run.notes).toEqual([]);
    const pids = pidsOf(run.stdout);
    expect(pids).toHaveLength(2);
    expect(pids.filter((pid) => !isGone(pid))).toEqual([]);
  });

  it('R02 a timeout kills the command and the descendants that left its process group', async () => {
    const run = await sh('setsid sleep 60 & echo $!; exec sleep 60', { timeoutMs: 300 });
    expect(run.outcome).toBe('timeout');
    expect(run.notes).toEqual(['timed out after 300 ms; process group killed']);
    const [escaped] = pidsOf(run.stdout);
    expect(escaped).toBeGreaterThan(0);
    expect(await waitUntil(() => isGone(escaped as number))).toBe(true);
  });

  it('R02 an abort kills the command and everything it started, within the kill grace', async () => {
    const controller = new AbortController();
    const started = performance.now();
    const pending = sh("trap '' TERM; setsid sleep 60 & echo $!; sleep 60 & echo $!; sleep 60", {
      signal: controller.signal,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    controller.abort();
    const run = await pending;
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(run.outcome).toBe('cancelled');
    const pids = pidsOf(run.stdout);
    expect(pids).toHaveLength(2);
    expect(pids.filter((pid) => !isGone(pid))).toEqual([]);
  });

  it('caps output keeping the head or the tail, and says how much was discarded', async () => {
    const script = 'printf "%s" 0123456789';
    const head = await runProcess({
      file: 'sh',
      args: ['-c', script],
      cwd: '.',
      timeoutMs: 5000,
      maxOutputBytes: 4,
    });
    const tail = await runProcess({
      file: 'sh',
      args: ['-c', script],
      cwd: '.',
      timeoutMs: 5000,
      maxOutputBytes: 4,
      keep: 'tail',
    });
    expect([head.stdout, tail.stdout]).toEqual(['0123', '6789']);
    expect(head.notes).toEqual(['stdout capped at 4 bytes; 6 bytes discarded']);
  });

  it('a program that cannot start is a spawn error, not a rejection', async () => {
    const run = await runProcess({ file: '/nonexistent/seamchart-x', args: [], cwd: '.', timeoutMs: 5000 });
    expect(run.outcome).toBe('spawn-error');
    expect(run.notes[0]).toMatch(/^could not start \/nonexistent\/seamchart-x: .*ENOENT/);
  });
});
