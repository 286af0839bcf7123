import { open, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
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

/** Where a session's mode is kept: beside its file (`<id>.mode.json`), as the log records turns only. */
function modeFileOf(sessionFile: string): string {
  return sessionFile.replace(/\.jsonl$/, '.mode.json');
}

/** The mode `session/set_mode` chose last for a session file, or `undefined` (never set, or unreadable). */
export async function readSessionMode(sessionFile: string): Promise<string | undefined> {
  try {
    const kept = JSON.parse(await readFile(modeFileOf(sessionFile), 'utf8')) as { mode?: unknown };
    return typeof kept.mode === 'string' ? kept.mode : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps a session's mode for `session/load` (written whole, then renamed: never half a file). */
export async function writeSessionMode(sessionFile: string, mode: string): Promise<void> {
  const file = modeFileOf(sessionFile);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ mode })}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

/** The `cwd` recorded in a session file's header line, or `undefined` when the file has none. */
export async function readSessionCwd(file: string): Promise<string | undefined> {
  let head: string;
  try {
    head = await readHead(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw acp.RequestError.resourceNotFound(file);
    throw error;
  }
  return parseHead(head).cwd;
}

// The header and the first prompt sit at the start of the file; 64 KiB is far more than they need.
const HEAD_BYTES = 65_536;
const TITLE_CHARS = 80;
const PAGE_SIZE = 50;

async function readHead(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** The header's `cwd` and the first prompt's text (the session's title), from a file's first bytes. */
function parseHead(head: string): { cwd?: string; title?: string } {
  const lines = head.split('\n');
  const found: { cwd?: string; title?: string } = {};
  try {
    const header = JSON.parse(lines[0] ?? '') as { cwd?: unknown };
    if (typeof header.cwd === 'string') found.cwd = header.cwd;
  } catch {
    return found;
  }
  for (const line of lines.slice(1, -1)) {
    try {
      const event = JSON.parse(line) as {
        type?: string;
        data?: { content?: { type: string; text?: string }[] };
      };
      if (event.type !== 'user/message') continue;
      const text = (event.data?.content ?? [])
        .map((block) => block.text ?? '')
        .join(' ')
        .trim();
      if (text !== '') found.title = text.length > TITLE_CHARS ? `${text.slice(0, TITLE_CHARS - 1)}…` : text;
      break;
    } catch {
      break;
    }
  }
  return found;
}

/**
 * `session/list`: the session files of the directory, most recently written first, in pages of 50;
 * with `cwd`, only the sessions started in that folder.
 * @param sessionsDir the sessions directory
 * @param filter `cwd` (absolute) and the `cursor` of the previous page
 */
export async function listSessionFiles(
  sessionsDir: string,
  filter: { cwd?: string; cursor?: string },
): Promise<acp.ListSessionsResponse> {
  const start = filter.cursor === undefined ? 0 : Number(filter.cursor);
  if (!Number.isSafeInteger(start) || start < 0) {
    throw acp.RequestError.invalidParams(
      { cursor: filter.cursor },
      `Expected cursor to be one this agent returned, got ${JSON.stringify(filter.cursor)}`,
    );
  }
  const names = await readdir(sessionsDir).catch(() => [] as string[]);
  const sessions: acp.SessionInfo[] = [];
  for (const name of names) {
    const sessionId = name.replace(/\.jsonl$/, '');
    if (!name.endsWith('.jsonl') || !SESSION_ID.test(sessionId)) continue;
    const file = path.join(sessionsDir, name);
    const info = await Promise.all([stat(file), readHead(file)]).catch(() => undefined);
    if (info === undefined) continue;
    const { cwd, title } = parseHead(info[1]);
    if (cwd === undefined || (filter.cwd !== undefined && path.resolve(cwd) !== filter.cwd)) continue;
    sessions.push({
      sessionId,
      cwd,
      updatedAt: info[0].mtime.toISOString(),
      ...(title === undefined ? {} : { title }),
    });
  }
  sessions.sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
  const page = sessions.slice(start, start + PAGE_SIZE);
  const next = start + PAGE_SIZE;
  return next < sessions.length ? { sessions: page, nextCursor: String(next) } : { sessions: page };
}
