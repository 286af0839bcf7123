import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Shell-quotes one word. */
export function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * A real pseudo-terminal: one tmux server on a private socket running one command in a 120×40
 * window. `screen()` is what a person sees; `keys()` types; the exit code is read from a file the
 * wrapping shell writes, and the pane stays on screen after the command exits.
 */
export class Terminal {
  private constructor(
    private readonly socket: string,
    private readonly dir: string,
  ) {}

  /** Starts `command` (a shell command line) in `cwd` with `env` added to a clean environment. */
  static async start(
    command: string,
    options: { cwd: string; env?: Record<string, string> },
  ): Promise<Terminal> {
    const dir = await mkdtemp(path.join(tmpdir(), 'seamchart-pty-'));
    const terminal = new Terminal(path.join(dir, 'tmux.sock'), dir);
    const env = Object.entries({ TERM: 'xterm-256color', ...(options.env ?? {}) })
      .map(([key, value]) => `${key}=${quote(value)}`)
      .join(' ');
    const status = path.join(dir, 'status');
    // The wrapping shell is in the terminal's foreground group too: a trap (not an ignore, which the
    // command would inherit) keeps it alive through Ctrl-C so it can record the exit code.
    const wrapped = `trap true INT; cd ${quote(options.cwd)} && env ${env} ${command}; echo $? > ${quote(status)}`;
    await terminal.tmux('new-session', '-d', '-x', '120', '-y', '40', '-s', 'run', 'sh', '-c', wrapped);
    await terminal.tmux('set-option', '-t', 'run', 'remain-on-exit', 'on');
    return terminal;
  }

  private async tmux(...args: string[]): Promise<string> {
    const { stdout } = await run('tmux', ['-S', this.socket, '-f', '/dev/null', ...args], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.dir },
    });
    return stdout;
  }

  /**
   * What the terminal shows, with what scrolled off the top (tmux scrolls one line to say the pane
   * died) and without tmux's own "Pane is dead" line; trailing blanks trimmed. With `escapes`,
   * colours as SGR sequences; with `joined`, lines the 120 columns wrapped are one line again.
   */
  async screen(escapes = false, joined = false): Promise<string> {
    const flags = [...(escapes ? ['-e'] : []), ...(joined ? ['-J'] : [])];
    const text = await this.tmux('capture-pane', '-p', '-S', '-', ...flags, '-t', 'run');
    return text
      .split('\n')
      .filter((line) => !line.startsWith('Pane is dead'))
      .join('\n')
      .replace(/\s+$/, '');
  }

  /** Types keys as tmux names them (`'y'`, `'Enter'`, `'C-c'`). */
  async keys(...keys: string[]): Promise<void> {
    await this.tmux('send-keys', '-t', 'run', ...keys);
  }

  /** Polls the screen until `test` holds (or fails after `timeoutMs`, showing the screen; `joined` as in `screen`). */
  async waitFor(
    test: (screen: string) => boolean,
    what: string,
    timeoutMs = 15_000,
    joined = false,
  ): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = await this.screen(false, joined);
      if (test(screen)) return screen;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; the screen shows:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Waits for the command to exit; its exit code. */
  async exitCode(timeoutMs = 15_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = await readFile(path.join(this.dir, 'status'), 'utf8').catch(() => '');
      if (text.trim() !== '') return Number(text.trim());
      if (Date.now() > deadline)
        throw new Error(`the command did not exit; the screen shows:\n${await this.screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async close(): Promise<void> {
    await this.tmux('kill-server').catch(() => {});
    await rm(this.dir, { recursive: true, force: true });
  }
}
