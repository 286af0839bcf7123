import { spawn } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { createEditor, type PermissionScript } from './harness.js';

/** The built CLI (test/e2e/support/buildOnce.ts builds dist/ before the suite). */
export const bin = path.resolve(import.meta.dirname, '../../dist/cli/bin.js');

/**
 * `seamchart acp ARGS` as an editor starts it: a child process, the SDK's client connected to its
 * stdio, every update and permission request recorded; `stdout()` is every byte it wrote.
 */
export function startAcpChild(
  args: readonly string[],
  options: {
    permissions?: PermissionScript;
    onPermission?: (params: acp.RequestPermissionRequest) => Promise<acp.RequestPermissionResponse>;
  } = {},
) {
  const child = spawn(process.execPath, [bin, 'acp', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const readable = new ReadableStream<Uint8Array>({
    start(controller) {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        controller.enqueue(new Uint8Array(chunk));
      });
      child.stdout.on('end', () => controller.close());
    },
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const editor = createEditor(options.permissions ?? [], options.onPermission);
  const connection = editor.app.connect(
    acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, readable),
  );
  return {
    child,
    connection,
    agent: connection.agent,
    record: editor.record,
    exited,
    stdout: () => stdout,
    stderr: () => stderr,
    initialize: () => connection.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 }),
    updatesOf: (sessionId: string) =>
      editor.record.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update),
    /** Closes stdin (the editor went away) and waits for the exit, at most `timeoutMs`. */
    async endStdin(timeoutMs = 10_000): Promise<number | null> {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
        connection.close();
      }
    },
  };
}

/** Whether a process is alive. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
