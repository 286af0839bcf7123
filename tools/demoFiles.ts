import { constants, type FileHandle, mkdir, open, realpath } from 'node:fs/promises';
import path from 'node:path';

/** Read shows at most this many bytes of a file (the head), with a note saying how much was cut. */
export const MAX_READ_BYTES = 256 * 1024;
/** Edit refuses files larger than this: it rewrites the whole file. */
export const MAX_EDIT_BYTES = 8 * 1024 * 1024;

// O_NOFOLLOW: the final component is never followed; O_NONBLOCK: opening a FIFO or device cannot block.
const SAFE = constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Opens a file inside `root` for the demo tools, refusing what could reach outside it or hang:
 * a path (or an existing ancestor's symlink) resolving outside `root`, a final component that is
 * a symlink left unresolved (dangling), a non-regular file (FIFO, device, socket, directory) and a
 * file with more than one hard link (another name for it may be outside `root`). Checked with
 * `fstat` on the opened descriptor. Not proof against another process racing to swap path
 * components between the check and the open.
 */
export async function openConfined(
  root: string,
  rawPath: string,
  mode: 'read' | 'write' | 'edit',
): Promise<{ handle: FileHandle; relative: string }> {
  const file = await confine(root, rawPath);
  if (mode === 'write') {
    await mkdir(path.dirname(file), { recursive: true });
    // mkdir may have gone through a symlink that did not resolve before: check the parent again.
    assertInside(await realRootOf(root), await realpath(path.dirname(file)), root, rawPath);
  }
  const flags =
    mode === 'read'
      ? constants.O_RDONLY | SAFE
      : mode === 'edit'
        ? constants.O_RDWR | SAFE
        : constants.O_WRONLY | constants.O_CREAT | SAFE;
  let handle: FileHandle;
  try {
    handle = await open(file, flags, 0o666);
  } catch (error) {
    throw explainOpenError(error, rawPath);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile())
      throw new Error(
        `Path "${rawPath}" is not a regular file (${kindOf(stat)}); the demo tools only open regular files`,
      );
    if (stat.nlink > 1)
      throw new Error(
        `Path "${rawPath}" has ${stat.nlink} hard links; refused because another name for it may be outside the scratch directory`,
      );
    return { handle, relative: path.relative(await realRootOf(root), file) };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Reads at most `MAX_READ_BYTES` of an open file; a longer file gets a note saying what was cut. */
export async function readCapped(handle: FileHandle): Promise<string> {
  const { size } = await handle.stat();
  const buffer = Buffer.alloc(Math.min(size, MAX_READ_BYTES));
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
  const text = buffer.subarray(0, bytesRead).toString('utf8');
  return size > MAX_READ_BYTES
    ? `${text}\n[truncated: showing the first ${MAX_READ_BYTES} of ${size} bytes]`
    : text;
}

/** Replaces an open file's whole content. */
export async function rewrite(handle: FileHandle, content: string): Promise<void> {
  await handle.truncate(0);
  await handle.write(content, 0, 'utf8');
}

/**
 * The real path of `rawPath` under `root` (symlinks of its deepest existing ancestor resolved), so a
 * link pointing outside cannot escape; throws when it lies outside the scratch directory.
 */
export async function confine(root: string, rawPath: string): Promise<string> {
  const realRoot = await realRootOf(root);
  const candidate = path.resolve(realRoot, rawPath);
  let existing = candidate;
  let rest = '';
  for (;;) {
    try {
      existing = await realpath(existing);
      break;
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) break;
      rest = path.join(path.basename(existing), rest);
      existing = parent;
    }
  }
  const resolved = path.join(existing, rest);
  assertInside(realRoot, resolved, root, rawPath);
  return resolved;
}

function assertInside(realRoot: string, resolved: string, root: string, rawPath: string): void {
  const relative = path.relative(realRoot, resolved);
  if (relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new Error(`Path "${rawPath}" is outside the scratch directory ${root}`);
  }
}

/** The root's real path (the root itself while it does not exist). */
export function realRootOf(root: string): Promise<string> {
  return realpath(root).catch(() => root);
}

function explainOpenError(error: unknown, rawPath: string): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP')
    return new Error(
      `Path "${rawPath}" is a symbolic link that does not resolve inside the scratch directory; refused`,
    );
  if (code === 'ENXIO' || code === 'EISDIR')
    return new Error(`Path "${rawPath}" is not a regular file; the demo tools only open regular files`);
  return error instanceof Error ? error : new Error(String(error));
}

function kindOf(stat: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean }): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  return 'a device';
}
