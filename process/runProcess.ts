import { spawn } from 'node:child_process';
import { ownerMarkerName } from './ownedProcesses.js';
import { createProcessTree } from './processTree.js';

/** What `runProcess` needs to start one command. */
export interface RunProcessOptions {
  /** The program (resolved on `PATH`) and its arguments; no shell unless you pass one. */
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** Default: this process's environment. */
  readonly env?: NodeJS.ProcessEnv;
  /** Written to stdin, then stdin is closed; without it stdin is `/dev/null`. */
  readonly stdin?: string;
  readonly timeoutMs: number;
  /** Aborting kills the process and everything it started, like a timeout. */
  readonly signal?: AbortSignal;
  /** Cap of stdout and of stderr each (default 1 MiB); `'tail'` keeps the last bytes instead of the first. */
  readonly maxOutputBytes?: number;
  readonly keep?: 'head' | 'tail';
  /** Time between SIGTERM and SIGKILL after a timeout or an abort (default 1000 ms). */
  readonly killGraceMs?: number;
  /** How long output is still read after the direct child exited (default 100 ms). */
  readonly drainMs?: number;
  /** Sees each stdout chunk as it arrives (a hook that answers `{"async":true}` on its first line). */
  readonly onStdout?: (chunk: Buffer) => void;
}

/** How one process run ended. Never a rejection: a failure to start is `outcome: 'spawn-error'`. */
export interface ProcessRun {
  /** `null` when the process died by a signal or never started. */
  readonly exitCode: number | null;
  readonly exitSignal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly outcome: 'exited' | 'timeout' | 'cancelled' | 'spawn-error';
  readonly durationMs: number;
  /** Caps hit, background processes killed, spawn errors, one line each. */
  readonly notes: readonly string[];
}

const DEFAULT_MAX_OUTPUT = 1024 * 1024;
const DEFAULT_KILL_GRACE_MS = 1000;
const DEFAULT_DRAIN_MS = 100;

/** Collects a stream up to a byte cap, keeping its head or its tail; the rest is counted. */
function createCollector(maxBytes: number, keep: 'head' | 'tail') {
  let chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  return {
    push(chunk: Buffer): void {
      if (keep === 'tail') {
        chunks.push(chunk);
        kept += chunk.length;
        if (kept > maxBytes) {
          const all = Buffer.concat(chunks);
          dropped += all.length - maxBytes;
          chunks = [all.subarray(all.length - maxBytes)];
          kept = maxBytes;
        }
        return;
      }
      const room = maxBytes - kept;
      const part = chunk.length > room ? chunk.subarray(0, Math.max(0, room)) : chunk;
      if (part.length > 0) chunks.push(part);
      kept += part.length;
      dropped += chunk.length - part.length;
    },
    text: (): string => Buffer.concat(chunks).toString('utf8'),
    dropped: (): number => dropped,
  };
}

/**
 * Runs one command in its own process group and settles when the direct child exits (plus a
 * short drain for its last output), not when every holder of its pipes is gone. On settle,
 * timeout and abort the whole group and every marked descendant that escaped it are killed
 * (see `createProcessTree` for what can and cannot be found), so nothing it started outlives it.
 * @param options program, arguments, cwd, env, stdin text, timeout, signal and caps
 * @example
 * const run = await runProcess({ file: 'sh', args: ['-c', 'echo hi'], cwd: '.', timeoutMs: 5000 });
 */
export function runProcess(options: RunProcessOptions): Promise<ProcessRun> {
  const started = performance.now();
  const maxBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const drainMs = options.drainMs ?? DEFAULT_DRAIN_MS;
  const keep = options.keep ?? 'head';
  const stdout = createCollector(maxBytes, keep);
  const stderr = createCollector(maxBytes, keep);
  const notes: string[] = [];
  const elapsed = (): number => Math.round((performance.now() - started) * 1000) / 1000;

  if (options.signal?.aborted) {
    return Promise.resolve({
      exitCode: null,
      exitSignal: null,
      stdout: '',
      stderr: '',
      outcome: 'cancelled',
      durationMs: 0,
      notes,
    });
  }
  const tree = createProcessTree();
  return new Promise<ProcessRun>((resolve) => {
    let outcome: ProcessRun['outcome'] = 'exited';
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let leaderExited = false;
    let settling = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const child = spawn(options.file, [...options.args], {
      cwd: options.cwd,
      env: { ...(options.env ?? process.env), [tree.markerName]: '1', [ownerMarkerName]: '1' },
      // Its own process group, so one signal reaches everything that stayed in it.
      detached: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });

    const settle = (): void => {
      if (settling) return;
      settling = true;
      clearTimeout(timeoutTimer);
      clearTimeout(graceTimer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
      // Whatever is still open belongs to processes that are about to be killed: stop reading.
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
      for (const [name, collector] of [
        ['stdout', stdout],
        ['stderr', stderr],
      ] as const) {
        if (collector.dropped() > 0)
          notes.push(`${name} capped at ${maxBytes} bytes; ${collector.dropped()} bytes discarded`);
      }
      void tree.kill(child.pid).then(() =>
        resolve({
          exitCode,
          exitSignal,
          stdout: stdout.text(),
          stderr: stderr.text(),
          outcome,
          durationMs: elapsed(),
          notes,
        }),
      );
    };

    const stop = (why: 'timeout' | 'cancelled'): void => {
      if (settling || outcome !== 'exited') return;
      outcome = why;
      if (leaderExited) {
        settle();
        return;
      }
      void tree.signal(child.pid, 'SIGTERM');
      graceTimer = setTimeout(settle, graceMs);
    };
    const onAbort = (): void => stop('cancelled');
    const timeoutTimer = setTimeout(() => {
      notes.push(`timed out after ${options.timeoutMs} ms; process group killed`);
      stop('timeout');
    }, options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout?.on('data', (chunk: Buffer) => {
      stdout.push(chunk);
      options.onStdout?.(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    if (child.stdin) {
      // A command that exits without reading its stdin makes the write fail with EPIPE: ignored on purpose.
      child.stdin.on('error', () => {});
      child.stdin.end(options.stdin);
    }

    child.on('error', (error) => {
      if (outcome === 'exited') outcome = 'spawn-error';
      notes.push(`could not start ${options.file}: ${error.message}`);
      settle();
    });
    child.on('exit', (code, signal) => {
      leaderExited = true;
      exitCode = code;
      exitSignal = signal;
      if (outcome !== 'exited') {
        settle();
        return;
      }
      // Output still in the pipes is read for a moment; background processes holding them are not waited for.
      drainTimer = setTimeout(() => {
        notes.push(`background processes kept the output open after the command exited; killed`);
        settle();
      }, drainMs);
    });
    child.on('close', settle);
  });
}
