import { createInterface } from 'node:readline';
import type { TextSink, TextSource } from './command.js';

/** What the loop drives: one agent, one turn per line. */
export interface PromptLoopAgent {
  followup(text: string): unknown;
  whenIdle(): Promise<void>;
}

export interface PromptLoopOptions {
  readonly agent: PromptLoopAgent;
  readonly input: TextSource;
  readonly output: TextSink;
  /** Accepts one prompt; `false` when the session can take no more (its store failed). */
  accept(text: string): boolean;
  /** After each turn: Ctrl-C during it cancelled that turn only, the next one starts afresh. */
  afterTurn(): void;
}

const PROMPT = '❯ ';
const QUIT_COMMANDS = new Set(['/exit', '/quit']);

/**
 * The interactive session at a terminal (`seamchart` with no prompt): each line is one turn on the
 * same agent; Ctrl-C cancels the running turn (the terminal sends SIGINT then, the run's handler
 * cancels); at the prompt it clears the line; Ctrl-D or `/exit` ends the loop.
 */
export async function runPromptLoop(options: PromptLoopOptions): Promise<void> {
  for (;;) {
    const line = await readPromptLine(options.input, options.output);
    if (line === undefined) return;
    const text = line.trim();
    if (text === '') continue;
    if (QUIT_COMMANDS.has(text)) return;
    if (!options.accept(text)) return;
    await options.agent.whenIdle();
    options.afterTurn();
  }
}

/**
 * One line typed at the prompt; `undefined` on Ctrl-D (end of input). Readline owns the terminal
 * only while the prompt shows, so during a turn Ctrl-C reaches the process as SIGINT.
 */
function readPromptLine(input: TextSource, output: TextSink): Promise<string | undefined> {
  return new Promise((resolve) => {
    const terminal = input.isTTY === true;
    const rl = createInterface({
      input,
      output: output as NodeJS.WritableStream,
      terminal,
      prompt: PROMPT,
    });
    let answered = false;
    rl.on('line', (line) => {
      answered = true;
      rl.close();
      resolve(line);
    });
    rl.on('close', () => {
      if (answered) return;
      if (terminal) output.write('\n');
      resolve(undefined);
    });
    rl.on('SIGINT', () => {
      // At the prompt Ctrl-C clears what was typed; on an empty line it says how to leave.
      if (rl.line === '') output.write('\n(Ctrl-D or /exit to quit)\n');
      else output.write('\n');
      rl.write(null, { ctrl: true, name: 'u' });
      rl.prompt();
    });
    rl.prompt();
  });
}
