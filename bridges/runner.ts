import { spawn } from 'node:child_process';
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
}

const DEFAULT_MAX_OUTPUT = 1024 * 1024;
const DEFAULT_KILL_GRACE_MS = 1000;

/** Collects a stream up to a byte cap; the rest is discarded and counted. */
function createCollector(maxBytes: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  return {
    push(chunk: Buffer): void {
      const room = maxBytes - kept;
      if (room <= 0) {
        dropped += chunk.length;
        return;
      }
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      chunks.push(part);
      kept += part.length;
      dropped += chunk.length - part.length;
    },
    text: (): string => Buffer.concat(chunks).toString('utf8'),
    dropped: (): number => dropped,
  };
}

/** Sends a signal to a whole process group; a group that is already gone is fine. */
function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: every member already exited.
  }
}

/**
 * Runs one hook command with `sh -c` (or, in exec form, the program with its `args`) in its own process group, feeding `stdin` and capturing
 * output; a timeout or an abort kills the whole group (SIGTERM, then SIGKILL after a grace).
 * Never rejects: failures to start become `outcome: 'spawn-error'`.
 * @param options command, cwd, env, stdin text, timeout and caps
 * @example
 * const run = await runHook({ command: 'cat', cwd: '.', env: process.env, stdin: '{}', timeoutMs: 5000 });
 */
export function runHook(options: RunHookOptions): Promise<HookRun> {
  const started = performance.now();
  const maxBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const stdout = createCollector(maxBytes);
  const stderr = createCollector(maxBytes);
  const notes: string[] = [];

  if (options.signal?.aborted) {
    return Promise.resolve({
      exitCode: null,
      stdout: '',
      stderr: '',
      outcome: 'cancelled',
      durationMs: 0,
      notes,
    });
  }
  return new Promise<HookRun>((resolve) => {
    let leaderExited = false;
    let outcome: HookRun['outcome'] = 'exited';
    let exitCode: number | null = null;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    let giveUpTimer: NodeJS.Timeout | undefined;

    const [program, argv] = options.args ? [options.command, options.args] : ['sh', ['-c', options.command]];
    const child = spawn(program, argv, {
      cwd: options.cwd,
      env: options.env,
      // Its own process group, so a timeout can kill everything the script started.
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });

    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(killTimer);
      clearTimeout(giveUpTimer);
      options.signal?.removeEventListener('abort', onAbort);
      for (const [name, collector] of [
        ['stdout', stdout],
        ['stderr', stderr],
      ] as const) {
        if (collector.dropped() > 0)
          notes.push(`${name} capped at ${maxBytes} bytes; ${collector.dropped()} bytes discarded`);
      }
      resolve({
        exitCode,
        stdout: stdout.text(),
        stderr: stderr.text(),
        outcome,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        notes,
      });
    };

    const kill = (why: 'timeout' | 'cancelled'): void => {
      if (settled || outcome !== 'exited') return;
      outcome = why;
      signalGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => {
        signalGroup(child.pid, 'SIGKILL');
        // A grandchild that left the group may hold the pipes open: stop waiting for them.
        giveUpTimer = setTimeout(finish, 100);
      }, graceMs);
    };
    const onAbort = (): void => kill('cancelled');
    const timeoutTimer = setTimeout(() => {
      if (leaderExited) {
        // The hook answered; only processes it left behind still hold the pipes.
        notes.push(`background processes kept the output open past ${options.timeoutMs} ms; killed`);
        signalGroup(child.pid, 'SIGKILL');
        finish();
        return;
      }
      notes.push(`timed out after ${options.timeoutMs} ms; process group killed`);
      kill('timeout');
    }, options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    // A hook that exits without reading its stdin makes the write fail with EPIPE: ignored on purpose.
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin);

    child.on('error', (error) => {
      if (outcome === 'exited') outcome = 'spawn-error';
      notes.push(`could not start the hook: ${error.message}`);
      finish();
    });
    child.on('exit', (code) => {
      leaderExited = true;
      exitCode = code;
      // The group leader is gone; anything left in its group was started by the hook and is not waited for.
      if (outcome !== 'exited') signalGroup(child.pid, 'SIGKILL');
    });
    child.on('close', finish);
  });
}
