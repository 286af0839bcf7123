import { findMarked, killAndWait, markerNeedle } from './processTable.js';

/**
 * The variable (`SEAMCHART_OWNER_<pid>=1`) every process this one starts carries (`runProcess`, MCP stdio
 * servers); descendants inherit it, so they are found even after they left their group or were reparented.
 */
export const ownerMarkerName = `SEAMCHART_OWNER_${process.pid}`;

/**
 * SIGKILLs every running process this one started (hooks, tool commands, their children, wherever they
 * went), and each one's process group, then waits briefly until they are gone. The last step before a
 * host exits on a signal: nothing it started outlives it, even a command that ignores SIGTERM. Where
 * there is no `/proc` nothing is found (see `createProcessTree` for the limits).
 * @returns how many processes were found
 * @example process.once('SIGINT', () => void killOwnedProcesses().finally(() => process.exit(130)));
 */
export async function killOwnedProcesses(): Promise<number> {
  const needle = markerNeedle(ownerMarkerName);
  const found = new Set<number>();
  // A process caught mid-exec (or forked during the kill) can hide from one scan: scan until one finds nothing new.
  for (let round = 0; round < maxScanRounds; round++) {
    const fresh = (await findMarked(needle)).filter((pid) => !found.has(pid));
    if (fresh.length === 0) break;
    for (const pid of fresh) found.add(pid);
    await killAndWait(fresh, { groups: true });
  }
  return found.size;
}

/** Scans of the process table one kill makes at most. */
const maxScanRounds = 3;
