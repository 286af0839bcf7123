import * as fs from 'node:fs';
import { promisify } from 'node:util';

/**
 * The file operations the JSONL store performs, one place: tests wrap them to inject real faults (a write that
 * stops after N bytes, an fsync that fails, a read that errors) and to observe how a file is read.
 */
export interface FileIo {
  openSync(path: string, flags: string, mode?: number): number;
  closeSync(fd: number): void;
  fstatSync(fd: number): fs.Stats;
  /** Reads into `buffer` from `position`; resolves the bytes read (0 at the end). */
  read(fd: number, buffer: Buffer, position: number): Promise<number>;
  writeSync(fd: number, buffer: Buffer, offset: number, length: number, position: number | null): number;
  ftruncateSync(fd: number, length: number): void;
  fsyncSync(fd: number): void;
  fsync(fd: number): Promise<void>;
}

const readAsync = promisify(fs.read);
const fsyncAsync = promisify(fs.fsync);

/** The real file system. */
export const nodeFileIo: FileIo = Object.freeze({
  openSync: (path: string, flags: string, mode?: number) => fs.openSync(path, flags, mode),
  closeSync: (fd: number) => fs.closeSync(fd),
  fstatSync: (fd: number) => fs.fstatSync(fd),
  read: async (fd: number, buffer: Buffer, position: number) =>
    (await readAsync(fd, buffer, 0, buffer.length, position)).bytesRead,
  writeSync: (fd: number, buffer: Buffer, offset: number, length: number, position: number | null) =>
    fs.writeSync(fd, buffer, offset, length, position),
  ftruncateSync: (fd: number, length: number) => fs.ftruncateSync(fd, length),
  fsyncSync: (fd: number) => fs.fsyncSync(fd),
  fsync: (fd: number) => fsyncAsync(fd),
});

/** Fsyncs a directory so a created, renamed or removed entry in it survives power loss. */
export function fsyncDirectory(io: FileIo, directory: string): void {
  const fd = io.openSync(directory, 'r');
  try {
    io.fsyncSync(fd);
  } finally {
    io.closeSync(fd);
  }
}

/** The errno code of a Node system error, if it is one. */
export function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
