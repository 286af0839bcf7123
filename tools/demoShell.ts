import { spawn } from 'node:child_process';

export interface ShellOutcome {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

const MAX_OUTPUT = 64 * 1024;

/**
 * Runs `sh -c command` in `cwd` in its own process group; the whole group is killed on abort or
 * timeout, so a pipeline's grandchildren do not outlive the call.
 */
export function runShell(
  command: string,
  options: { cwd: string; timeoutMs: number; signal: AbortSignal },
): Promise<ShellOutcome> {
  return new Promise((resolve, reject) => {
    if (options.signal.aborted) {
      reject(new Error('Bash was aborted before it started'));
      return;
    }
    const child = spawn('sh', ['-c', command], {
      cwd: options.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group already exited.
      }
    };
    const onAbort = (): void => killGroup();
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    options.signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout = (stdout + chunk.toString('utf8')).slice(-MAX_OUTPUT);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-MAX_OUTPUT);
    });
    const cleanup = (): void => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
    };
    child.on('error', (error) => {
      cleanup();
      reject(error);
    });
    child.on('close', (exitCode, signal) => {
      cleanup();
      if (options.signal.aborted) reject(new Error('Bash was aborted'));
      else resolve({ exitCode, signal, stdout, stderr, timedOut });
    });
  });
}
