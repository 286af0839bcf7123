import { open } from 'node:fs/promises';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';

// The agent's own id format (randomUUID): nothing else may name a file under the sessions directory.
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The session file of a validated session id; a malformed id is refused before any path is built.
 * @param sessionsDir the sessions directory
 * @param rawSessionId the id as the editor sent it
 */
export function resolveSessionFile(sessionsDir: string, rawSessionId: string): string {
  if (!SESSION_ID.test(rawSessionId)) {
    throw acp.RequestError.invalidParams(
      { sessionId: rawSessionId },
      `Expected sessionId to be a seamchart session id (a lowercase UUID), got ${JSON.stringify(rawSessionId)}`,
    );
  }
  return path.join(sessionsDir, `${rawSessionId}.jsonl`);
}

/** The `cwd` recorded in a session file's header line, or `undefined` when the file has none. */
export async function readSessionCwd(file: string): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw acp.RequestError.resourceNotFound(file);
    throw error;
  }
  try {
    // The header is the first line and small; 64 KiB is far more than it needs.
    const buffer = Buffer.alloc(65_536);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const firstLine = buffer.subarray(0, bytesRead).toString('utf8').split('\n')[0] ?? '';
    const header = JSON.parse(firstLine) as { cwd?: unknown };
    return typeof header.cwd === 'string' ? header.cwd : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
