import { runProcess } from '../process/index.js';
import type { HookRun } from './types.js';

/** What `runHook` needs to start one hook command. */
export interface RunHookOptions {
  /** A shell command (`sh -c`), or the program when `args` is given. */
  readonly command: string;
  /** Exec form: the program's arguments; the program runs without a shell. */
  readonly args?: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Written to stdin, then stdin is closed. */
  readonly stdin: string;
  readonly timeoutMs: number;
  /** Aborting kills the process group, like a timeout. */
  readonly signal?: AbortSignal;
  /** Cap of stdout and of stderr each (default 1 MiB). */
  readonly maxOutputBytes?: number;
  /** Time between SIGTERM and SIGKILL (default 1000 ms). */
  readonly killGraceMs?: number;
  /** Sees stdout as it arrives. */
  readonly onStdout?: (chunk: Buffer) => void;
}

/**
 * Runs one hook command with `sh -c` (in exec form: the program with its `args`) in its own
 * process group, feeding `stdin` and capturing output. The run settles when the hook's own process exits (plus a short drain), and then kills
 * what it left behind; a timeout or an abort kills the whole tree (SIGTERM, then SIGKILL after a
 * grace). See `runProcess` for the spawn, settle and kill rules.
 * Never rejects: failures to start become `outcome: 'spawn-error'`.
 * @param options command, cwd, env, stdin text, timeout and caps
 * @example
 * const run = await runHook({ command: 'cat', cwd: '.', env: process.env, stdin: '{}', timeoutMs: 5000 });
 */
export async function runHook(options: RunHookOptions): Promise<HookRun> {
  const run = await runProcess({
    // Exec form: the program with its own argv, no shell in between.
    file: options.args ? options.command : 'sh',
    args: options.args ? [...options.args] : ['-c', options.command],
    cwd: options.cwd,
    env: options.env,
    stdin: options.stdin,
    timeoutMs: options.timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.maxOutputBytes === undefined ? {} : { maxOutputBytes: options.maxOutputBytes }),
    ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
    ...(options.onStdout === undefined ? {} : { onStdout: options.onStdout }),
  });
  const { exitSignal: _, ...hookRun } = run;
  return hookRun;
}
