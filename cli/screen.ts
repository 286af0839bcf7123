import type { TextSink } from './command.js';

/** SGR styles the transcript uses; each is the identity when colour is off. */
export interface Palette {
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const sgr =
  (open: number, close: number) =>
  (text: string): string =>
    `\x1b[${open}m${text}\x1b[${close}m`;
const identity = (text: string): string => text;

export const colours: Palette = {
  dim: sgr(2, 22),
  bold: sgr(1, 22),
  red: sgr(31, 39),
  green: sgr(32, 39),
  yellow: sgr(33, 39),
  cyan: sgr(36, 39),
};
export const plain: Palette = {
  dim: identity,
  bold: identity,
  red: identity,
  green: identity,
  yellow: identity,
  cyan: identity,
};

/** Colour only on a terminal, never with `NO_COLOR` (any non-empty value) or `--no-color` (clig.dev). */
export function wantsColour(sink: TextSink, env: NodeJS.ProcessEnv, noColourFlag: boolean): boolean {
  return sink.isTTY === true && !noColourFlag && !env.NO_COLOR && env.TERM !== 'dumb';
}

/**
 * The terminal a run draws on: transcript text on `out`, a one-line live status on `status` (a TTY
 * only). The status line is erased before anything else is printed, so none is left on screen; it is
 * not drawn while a streamed line is half-written (the text itself shows progress then).
 */
export class Screen {
  readonly style: Palette;
  private statusShown = false;
  private atLineStart = true;

  constructor(
    private readonly out: TextSink,
    private readonly status: TextSink | undefined,
    colour: boolean,
  ) {
    this.style = colour ? colours : plain;
  }

  /** Writes text that may end mid-line (streamed deltas). */
  write(text: string): void {
    if (text === '') return;
    this.clearStatus();
    this.out.write(text);
    this.atLineStart = text.endsWith('\n');
  }

  /** Writes whole lines, first ending a half-written streamed line. */
  line(text = ''): void {
    this.endLine();
    this.write(`${text}\n`);
  }

  /** Ends a half-written streamed line, if any. */
  endLine(): void {
    if (!this.atLineStart) this.write('\n');
  }

  /** Shows `text` on the live status line (replacing the previous one); a no-op off a terminal. */
  setStatus(text: string): void {
    if (this.status === undefined || !this.atLineStart) return;
    this.status.write(`\r\x1b[2K${this.style.dim(text)}`);
    this.statusShown = true;
  }

  /** Erases the status line, if one is on screen. */
  clearStatus(): void {
    if (!this.statusShown || this.status === undefined) return;
    this.status.write('\r\x1b[2K');
    this.statusShown = false;
  }
}
