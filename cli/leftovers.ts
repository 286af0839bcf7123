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
  return killed;
}
