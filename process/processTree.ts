import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

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

/** How long `kill` waits for SIGKILLed processes to die before it stops checking. */
const KILL_WAIT_MS = 2000;

/**
 * Creates the marker for one spawn.
 * @example const tree = createProcessTree(); spawn(file, args, { detached: true, env: { ...env, [tree.markerName]: '1' } });
 */
export function createProcessTree(): ProcessTree {
  const markerName = `SEAMCHART_TREE_${randomUUID().replaceAll('-', '')}`;
  const needle = Buffer.from(`\0${markerName}=1\0`);
  return {
    markerName,
    async signal(pid, signal) {
      if (pid !== undefined) signalGroup(pid, signal);
      for (const escaped of await findMarked(needle)) signalProcess(escaped, signal);
    },
    async kill(pid) {
      if (pid !== undefined) signalGroup(pid, 'SIGKILL');
      const marked = await findMarked(needle);
      for (const escaped of marked) signalProcess(escaped, 'SIGKILL');
      // SIGKILL is delivered asynchronously: wait until each is dead, so "settled" means "gone".
      const deadline = Date.now() + KILL_WAIT_MS;
      while (marked.some(isAlive) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  };
}

/** Sends a signal to a whole process group; a group that is already gone is fine. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: every member already exited.
  }
}

function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // It exited between the scan and the signal, or belongs to someone else.
  }
}

// Alive and not a zombie (a zombie has released everything; only its parent's wait is missing).
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

// Pids whose initial environment carries the marker; empty where there is no /proc.
async function findMarked(needle: Buffer): Promise<number[]> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const pids = entries.filter((name) => /^\d+$/.test(name)).map(Number);
  const marked = await Promise.all(
    pids.map(async (pid) => {
      if (pid === process.pid) return undefined;
      try {
        // A leading NUL makes the first variable match like the others.
        const environ = Buffer.concat([Buffer.from([0]), await readFile(`/proc/${pid}/environ`)]);
        return environ.includes(needle) ? pid : undefined;
      } catch {
        return undefined;
      }
    }),
  );
  return marked.filter((pid): pid is number => pid !== undefined);
}
