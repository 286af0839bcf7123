import { runProcess } from '../process/index.js';

export interface ShellOutcome {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Output caps hit and background processes killed, one line each. */
  notes: string[];
}

/** Bash keeps the last 64 KiB of stdout and of stderr each: the end of a build log is what matters. */
const MAX_OUTPUT = 64 * 1024;

/**
 * Runs `sh -c command` in `cwd` (stdin `/dev/null`). It returns when the shell itself exits (plus a
 * short drain); everything it started — its process group and marked descendants that left it — is
 * killed then, and on timeout or abort. Not a sandbox: the command runs with this process's rights.
 */
export async function runShell(
  command: string,
  options: { cwd: string; timeoutMs: number; signal: AbortSignal; env?: Readonly<Record<string, string>> },
): Promise<ShellOutcome> {
  if (options.signal.aborted) throw new Error('Bash was aborted before it started');
  const run = await runProcess({
    file: 'sh',
    args: ['-c', command],
    cwd: options.cwd,
    ...(options.env === undefined || Object.keys(options.env).length === 0
      ? {}
      : { env: { ...process.env, ...options.env } }),
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    maxOutputBytes: MAX_OUTPUT,
    keep: 'tail',
    killGraceMs: 500,
  });
  if (run.outcome === 'cancelled') throw new Error('Bash was aborted');
  if (run.outcome === 'spawn-error') throw new Error(`Bash could not start sh: ${run.notes.join('; ')}`);
  return {
    exitCode: run.exitCode,
    signal: run.exitSignal,
    stdout: run.stdout,
    stderr: run.stderr,
    timedOut: run.outcome === 'timeout',
    notes: [...run.notes],
  };
}
