import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/** How long a kill waits for SIGKILLed processes to die before it stops checking. */
const KILL_WAIT_MS = 2000;

/** The bytes `NAME=1` looks like inside `/proc/<pid>/environ` (NUL-separated). */
export function markerNeedle(markerName: string): Buffer {
  return Buffer.from(`\0${markerName}=1\0`);
}

/** Pids (other than this process) whose initial environment carries the marker; empty where there is no /proc. */
export async function findMarked(needle: Buffer): Promise<number[]> {
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

/** Sends a signal to a whole process group; a group that is already gone is fine. */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: every member already exited (or `pid` leads no group).
  }
}

/** Sends a signal to one process; one that already exited is fine. */
export function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // It exited between the scan and the signal, or belongs to someone else.
  }
}

/**
 * SIGKILLs each pid (and, with `groups`, the group each one leads) and waits until they are dead, so
 * "killed" means "gone"; SIGKILL is delivered asynchronously.
 */
export async function killAndWait(pids: readonly number[], options: { groups: boolean }): Promise<void> {
  for (const pid of pids) {
    if (options.groups) signalGroup(pid, 'SIGKILL');
    signalProcess(pid, 'SIGKILL');
  }
  const deadline = Date.now() + KILL_WAIT_MS;
  while (pids.some(isAlive) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
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

/** Scans of the process table one kill makes at most. */
const maxScanRounds = 3;

/**
 * SIGKILLs every process carrying the marker (and, with `groups`, each one's group), then waits until
 * they are gone. A process caught mid-exec (or forked during the kill) can hide from one scan, so it
 * scans until one finds nothing new.
 * @returns how many processes were found
 */
export async function killMarked(needle: Buffer, options: { groups: boolean }): Promise<number> {
  const found = new Set<number>();
  for (let round = 0; round < maxScanRounds; round++) {
    const fresh = (await findMarked(needle)).filter((pid) => !found.has(pid));
    if (fresh.length === 0) break;
    for (const pid of fresh) found.add(pid);
    await killAndWait(fresh, options);
  }
  return found.size;
}
