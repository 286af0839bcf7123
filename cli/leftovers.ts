import { readFileSync } from 'node:fs';
import pidtree from 'pidtree';

/**
 * Kills every process this one started that is still running (hooks, tool commands and their
 * children, found through the process table), and each one's process group. The last step before
 * a run ends on a signal: nothing the run started outlives it, even a command that ignores SIGTERM.
 */
export async function killLeftovers(): Promise<number> {
  const pids = await pidtree(process.pid).catch(() => [] as number[]);
  let killed = 0;
  for (const pid of pids) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
        killed += 1;
      } catch {
        // Not a group leader, or already gone.
      }
    }
  }
  // SIGKILL is delivered asynchronously: wait (briefly) until each is gone, so the run exits last.
  const deadline = Date.now() + 1000;
  while (pids.some(isAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  return killed;
}

/** Whether a pid is a running (not zombie) process; without /proc, whether it can be signalled. */
function isAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}
