import { PassThrough } from 'node:stream';
import type { CliIO } from '../../../cli/command.js';

/** A `CliIO` that records stdout and stderr and has no terminal, no signals and no exit. */
export function captureIO(): CliIO & { out(): string; err(): string; lines(): string[] } {
  let out = '';
  let err = '';
  return {
    stdout: {
      write: (text: string) => {
        out += text;
        return true;
      },
    },
    stderr: {
      write: (text: string) => {
        err += text;
        return true;
      },
    },
    stdin: new PassThrough(),
    env: {},
    onSignal: () => () => {},
    exit: (code) => {
      throw new Error(`unexpected exit(${code})`);
    },
    out: () => out,
    err: () => err,
    lines: () => out.split('\n').filter((line) => line !== ''),
  };
}
