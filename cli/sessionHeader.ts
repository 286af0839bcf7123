import { open } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { UsageError } from './command.js';
import { resolveCwd } from './runFlags.js';

/** What a session file's header says about how the session was run. */
export interface RecordedSession {
  readonly cwd?: string;
  readonly tools?: string;
}

// The header is the first line and small.
const HEADER_BYTES = 65_536;

/** The `cwd` and `tools` in a session file's header; empty when the file or its header cannot be read. */
export async function readRecordedSession(file: string): Promise<RecordedSession> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (handle === undefined) return {};
  try {
    const buffer = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const header = JSON.parse(buffer.subarray(0, bytesRead).toString('utf8').split('\n')[0] ?? '') as {
      cwd?: unknown;
      tools?: unknown;
    };
    return {
      ...(typeof header.cwd === 'string' ? { cwd: header.cwd } : {}),
      ...(typeof header.tools === 'string' ? { tools: header.tools } : {}),
    };
  } catch {
    return {};
  } finally {
    await handle.close();
  }
}

/**
 * The folder and tool set of a run: on `--resume` the session's own (from its header), unless a flag
 * gives another, which is then said in `notes`.
 * @param command the run command (to tell a given `--tools` from its default)
 * @param flags `--cwd`, `--tools`, `--resume`, `--session`
 */
export async function resolveSessionSetup(
  command: Command,
  flags: { cwd?: string; tools: string; resume?: boolean; session?: string },
): Promise<{ cwd: string; tools: string; notes: string[] }> {
  const recorded =
    flags.resume && flags.session !== undefined ? await readRecordedSession(flags.session) : {};
  const notes: string[] = [];
  let cwd: string;
  if (recorded.cwd !== undefined && flags.cwd === undefined) {
    cwd = await resolveCwd(recorded.cwd).catch(() => {
      throw new UsageError(
        `--resume: the session's folder ${recorded.cwd} no longer exists; give --cwd DIR to continue it elsewhere`,
      );
    });
  } else {
    cwd = await resolveCwd(flags.cwd);
    if (recorded.cwd !== undefined && path.resolve(recorded.cwd) !== cwd)
      notes.push(`--cwd ${cwd} overrides the session's folder ${recorded.cwd}`);
  }
  let tools = flags.tools;
  if (recorded.tools !== undefined) {
    if (command.getOptionValueSource('tools') !== 'cli') tools = recorded.tools;
    else if (recorded.tools !== flags.tools)
      notes.push(`--tools ${flags.tools} overrides the session's tools (${recorded.tools})`);
  }
  return { cwd, tools, notes };
}
