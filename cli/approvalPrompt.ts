import { createInterface } from 'node:readline/promises';
import type { ApprovalChannel, ApprovalOutcome, ApprovalRequest } from '../index.js';
import type { TextSource } from './command.js';
import type { Screen } from './screen.js';
import { shortArguments } from './transcript.js';

/** How `run` answers an `ask`: prompt at the terminal, or answer every ask without one. */
export type ApproveMode = 'ask' | 'yes' | 'no';

/** A person's answer, in the approval channel's object form (`bridges.md`). */
export interface ApprovalAnswer {
  outcome: Extract<ApprovalOutcome, 'allowed-once' | 'rejected' | 'cancelled'>;
  reason?: string;
  remember?: 'tool';
}

export interface TerminalApprovalOptions {
  screen: Screen;
  input: TextSource;
  /** Where the question is asked (stderr, so it shows even when stdout is redirected). */
  output: NodeJS.WritableStream;
  /** Ctrl-C at the prompt: the run cancels the turn. */
  onInterrupt(): void;
  /** Called with each answer, so the transcript can say who decided. */
  onAnswer?(request: ApprovalRequest, answer: ApprovalAnswer): void;
}

/** `--approve yes|no`: every ask answered without a prompt. */
export function fixedApproval(
  mode: 'yes' | 'no',
  onAnswer?: TerminalApprovalOptions['onAnswer'],
): ApprovalChannel {
  return {
    async request(request) {
      const answer: ApprovalAnswer =
        mode === 'yes'
          ? { outcome: 'allowed-once' }
          : {
              outcome: 'rejected',
              reason: `not approved (--approve no)${request.reason ? `; approval was asked because: ${request.reason}` : ''}`,
            };
      onAnswer?.(request, answer);
      return answer;
    },
  };
}

/** The answer when standard input has ended: nobody can answer, so the call is denied (the model is told why). */
const NO_INPUT_ANSWER: ApprovalAnswer = Object.freeze({
  outcome: 'rejected',
  reason: 'not approved: standard input closed before anyone answered (--approve ask)',
});

/** Whether a stream has ended or been destroyed: a question on it would never be answered. */
function inputEnded(input: TextSource): boolean {
  const stream = input as { readableEnded?: boolean; destroyed?: boolean };
  return stream.readableEnded === true || stream.destroyed === true;
}

/**
 * The approval prompt at a terminal: prints the tool, its arguments and the reason, and reads `y`
 * (allow once), `n` (deny, then an optional reason), or `a` (allow this tool for the rest of the
 * session). One question at a time; a cancelled call withdraws its question.
 */
export function terminalApproval(options: TerminalApprovalOptions): ApprovalChannel {
  const remembered = new Set<string>();
  let queue: Promise<unknown> = Promise.resolve();

  async function ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    if (remembered.has(request.toolName)) return { outcome: 'allowed-once', remember: 'tool' };
    if (request.signal.aborted) return { outcome: 'cancelled' };
    const { screen } = options;
    const { style } = screen;
    screen.clearStatus();
    screen.endLine();
    const args = shortArguments(request.arguments);
    screen.line(style.yellow(`? ${request.toolName}(${args}) needs your approval`));
    if (request.reason) screen.line(style.yellow(`  reason: ${request.reason}`));
    const rl = createInterface({
      input: options.input,
      output: options.output,
      terminal: options.input.isTTY === true,
    });
    // Input that ended (stdin closed, or never open) can give no answer: the call is denied and the run goes on.
    if (inputEnded(options.input)) return NO_INPUT_ANSWER;
    const interrupted = new AbortController();
    let inputClosed = false;
    const onAbort = (): void => interrupted.abort();
    request.signal.addEventListener('abort', onAbort, { once: true });
    rl.once('close', () => {
      inputClosed = true;
      interrupted.abort();
    });
    rl.on('SIGINT', () => {
      options.onInterrupt();
      interrupted.abort();
    });
    try {
      for (;;) {
        const key = (
          await rl.question(`  allow? [y] once  [n] no  [a] always for ${request.toolName}: `, {
            signal: interrupted.signal,
          })
        )
          .trim()
          .toLowerCase();
        if (key === 'y' || key === 'yes') return { outcome: 'allowed-once' };
        if (key === 'a' || key === 'always') {
          remembered.add(request.toolName);
          return { outcome: 'allowed-once', remember: 'tool' };
        }
        if (key === 'n' || key === 'no') {
          const reason = (
            await rl.question('  reason for the model (Enter to skip): ', { signal: interrupted.signal })
          ).trim();
          return reason === '' ? { outcome: 'rejected' } : { outcome: 'rejected', reason };
        }
      }
    } catch {
      if (inputClosed && !request.signal.aborted) return NO_INPUT_ANSWER;
      // The question was withdrawn: Ctrl-C at the prompt, or the call was cancelled.
      return { outcome: 'cancelled' };
    } finally {
      request.signal.removeEventListener('abort', onAbort);
      rl.close();
    }
  }

  return {
    request(request) {
      const answered = queue.then(() => ask(request));
      queue = answered.catch(() => {});
      return answered.then((answer) => {
        options.onAnswer?.(request, answer);
        return answer;
      });
    },
  };
}
