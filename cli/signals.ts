import type { CliIO } from './command.js';

/** The exit code of a run ended by a signal (128 + its number). */
export const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;
export type RunSignal = keyof typeof SIGNAL_EXIT;

export interface InterruptOptions {
  /** First Ctrl-C or SIGTERM: cancel the turn (the run then flushes and exits). */
  cancel(signal: RunSignal): void;
  /** Second one: nothing left to wait for; the process exits at once. */
  quit(signal: RunSignal): void;
}

/**
 * Ctrl-C for a run: the first SIGINT/SIGTERM (or Ctrl-C at the approval prompt) cancels, the second
 * quits. `received` is the first signal, which decides the exit code.
 */
export class Interrupts {
  received: RunSignal | undefined;
  private readonly unsubscribe: () => void;

  constructor(
    io: CliIO,
    private readonly options: InterruptOptions,
  ) {
    this.unsubscribe = io.onSignal((signal) => this.interrupt(signal));
  }

  interrupt(signal: RunSignal = 'SIGINT'): void {
    if (this.received === undefined) {
      this.received = signal;
      this.options.cancel(signal);
    } else this.options.quit(this.received);
  }

  /** The prompt loop after a turn: a later Ctrl-C cancels the next turn rather than quitting. */
  reset(): void {
    this.received = undefined;
  }

  dispose(): void {
    this.unsubscribe();
  }
}
