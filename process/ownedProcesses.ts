import { killMarked, markerNeedle } from './processTable.js';

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
export function killOwnedProcesses(): Promise<number> {
  return killMarked(markerNeedle(ownerMarkerName), { groups: true });
}
