import { InvalidArgumentError } from 'commander';
import type { ApprovalChannel, LogEvent, SessionStore } from '../index.js';
import { findSuspension, listPendingApprovals } from '../index.js';
import { describeApproval, fileCommands, howToAnswer } from './approvalText.js';
import type { CliIO } from './command.js';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--approve-expires-in`: `90s`, `30m`, `2h`, `1d` (a bare number is seconds), in milliseconds. */
export function durationFlag(value: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(value.trim());
  const amount = match ? Number(match[1]) : Number.NaN;
  if (!match || !Number.isSafeInteger(amount) || amount < 1)
    throw new InvalidArgumentError('expected a duration such as 90s, 30m, 2h or 1d.');
  return amount * UNIT_MS[(match[2] || 's') as keyof typeof UNIT_MS];
}

/** `--approve defer`: every ask is deferred, expiring `expiresInMs` after it was asked when given. */
export function deferredApproval(expiresInMs: number | undefined): ApprovalChannel {
  return {
    request: async () =>
      expiresInMs === undefined
        ? { outcome: 'deferred' }
        : { outcome: 'deferred', expiresAt: new Date(Date.now() + expiresInMs).toISOString() },
  };
}

/** The pending requests and what to do about them, on stderr (stdout may be a `--json` stream). */
function reportSuspension(events: readonly LogEvent[], file: string, io: CliIO, lead: string): void {
  const approvals = listPendingApprovals(events, new Date());
  const say = (line: string): void => {
    io.stderr.write(`${line}\n`);
  };
  say(`seamchart: ${lead}`);
  for (const approval of approvals) for (const line of describeApproval(approval)) say(`  ${line}`);
  for (const line of howToAnswer(approvals, fileCommands(file))) say(line);
}

/**
 * A run that ended with its turn suspended (exit 3): prints the pending requests and how to answer them.
 * @returns whether the log ends suspended
 */
export function suspendedExit(events: readonly LogEvent[], file: string, io: CliIO): boolean {
  const suspension = findSuspension(events);
  if (suspension === undefined) return false;
  const count = suspension.pending.length;
  reportSuspension(
    events,
    file,
    io,
    `turn ${suspension.turn} is suspended on ${count} deferred approval${count === 1 ? '' : 's'}; the session waits in ${file}:`,
  );
  return true;
}

/**
 * `run --resume` of a turn whose requests are not all answered (expired ones count as answered): prints them
 * and how to answer, and the run does nothing.
 * @returns whether the run must stop (exit 3)
 */
export function resumeBlockedByApprovals(
  store: SessionStore,
  file: string,
  prompts: readonly string[] | 'loop',
  io: CliIO,
): boolean {
  const open = listPendingApprovals(store.initialEvents, new Date()).filter((approval) => !approval.expired);
  if (open.length === 0) return false;
  const suspension = findSuspension(store.initialEvents);
  reportSuspension(
    store.initialEvents,
    file,
    io,
    `turn ${suspension?.turn} is still waiting for ${open.length} approval${open.length === 1 ? '' : 's'}; nothing was run${
      Array.isArray(prompts) && prompts.length > 0 ? ' (and the prompt was not queued)' : ''
    }:`,
  );
  return true;
}
