// Real faults for the JSONL store: a disk that fills after N bytes, an fsync or read that fails.
import { type FileIo, nodeFileIo } from '../../../session/stores/fileIo.js';

export interface FaultOptions {
  /** Bytes written for real before every further write fails with `writeError` (a short write comes first). */
  failWritesAfterBytes?: number;
  writeError?: 'ENOSPC' | 'EIO' | 'EDQUOT';
  /** fsync (sync and async) fails with this code from the call numbered `failFsyncFrom` (1-based) on. */
  failFsync?: 'EIO' | 'ENOSPC';
  failFsyncFrom?: number;
  /** Every read fails with this code. */
  failRead?: 'EIO';
  /** Sees each read: the buffer size asked for and the bytes returned. */
  onRead?: (asked: number, got: number) => void;
}

export function errnoError(code: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected fault, ${syscall}`), { code, syscall });
}

/** The real file system with faults injected where the options say. */
export function faultIo(options: FaultOptions): FileIo & { readonly written: () => number } {
  let budget = options.failWritesAfterBytes ?? Number.POSITIVE_INFINITY;
  let written = 0;
  let fsyncs = 0;
  const fsyncFails = () => options.failFsync !== undefined && ++fsyncs >= (options.failFsyncFrom ?? 1);
  return {
    ...nodeFileIo,
    written: () => written,
    writeSync(fd, buffer, offset, length, position) {
      if (budget <= 0) throw errnoError(options.writeError ?? 'ENOSPC', 'write');
      const allowed = Math.min(length, budget);
      const done = nodeFileIo.writeSync(fd, buffer, offset, allowed, position);
      budget -= done;
      written += done;
      return done;
    },
    fsyncSync(fd) {
      if (fsyncFails()) throw errnoError(options.failFsync as string, 'fsync');
      nodeFileIo.fsyncSync(fd);
    },
    async fsync(fd) {
      if (fsyncFails()) throw errnoError(options.failFsync as string, 'fsync');
      await nodeFileIo.fsync(fd);
    },
    async read(fd, buffer, position) {
      if (options.failRead !== undefined) throw errnoError(options.failRead, 'read');
      const got = await nodeFileIo.read(fd, buffer, position);
      options.onRead?.(buffer.length, got);
      return got;
    },
  };
}
