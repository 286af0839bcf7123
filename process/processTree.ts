import { randomUUID } from 'node:crypto';
import { findMarked, killMarked, markerNeedle, signalGroup, signalProcess } from './processTable.js';

/**
 * The processes one spawn started, found again after they left its process group.
 *
 * Every spawn gets its own process group and a unique marker variable in its environment
 * (`SEAMCHART_TREE_<id>=1`), which every descendant inherits. Killing the group reaches children
 * that stayed in it (`sleep 60 &`); scanning `/proc/<pid>/environ` for the marker reaches children
 * that left it (`setsid sleep 60 &`), even after they were reparented. Limits: a descendant that
 * clears its environment (`env -i`) *and* leaves the group, or runs as another user, is not found;
 * without `/proc` (macOS, Windows) only the group is killed. A per-run cgroup or a
 * `PR_SET_CHILD_SUBREAPER` would close that gap, but Node offers neither without a native addon.
 */
export interface ProcessTree {
  /** The variable to add to the child's environment. */
  readonly markerName: string;
  /** Sends `signal` to the group led by `pid` and to every marked process outside it. */
  signal(pid: number | undefined, signal: NodeJS.Signals): Promise<void>;
  /** SIGKILLs the group and every marked process, and waits (briefly) until they are gone. */
  kill(pid: number | undefined): Promise<void>;
}

/**
 * Creates the marker for one spawn.
 * @example const tree = createProcessTree(); spawn(file, args, { detached: true, env: { ...env, [tree.markerName]: '1' } });
 */
export function createProcessTree(): ProcessTree {
  const markerName = `SEAMCHART_TREE_${randomUUID().replaceAll('-', '')}`;
  const needle = markerNeedle(markerName);
  return {
    markerName,
    async signal(pid, signal) {
      if (pid !== undefined) signalGroup(pid, signal);
      for (const escaped of await findMarked(needle)) signalProcess(escaped, signal);
    },
    async kill(pid) {
      if (pid !== undefined) signalGroup(pid, 'SIGKILL');
      await killMarked(needle, { groups: false });
    },
  };
}
