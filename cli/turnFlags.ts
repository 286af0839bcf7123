import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { UsageError } from './command.js';
import { readFlagFile } from './runFlags.js';

/** The flags that shape each turn, shared by `run`, the prompt loop and `acp`. */
export interface TurnFlags {
  instructions?: string;
  instructionsFile?: string;
  maxSteps?: number;
  maxRetries?: number;
  /** `false` with `--no-project-instructions`. */
  projectInstructions: boolean;
}

/** A whole number of at least `min`. */
function wholeNumber(min: number): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < min)
      throw new InvalidArgumentError(`expected a whole number of at least ${min}.`);
    return number;
  };
}

/** Declares the turn flags on a command. */
export function addTurnFlags(command: Command): Command {
  return command
    .option('--instructions <text>', 'the system prompt sent with every model request')
    .option('--instructions-file <file>', 'the system prompt, read from a file')
    .option(
      '--no-project-instructions',
      'do not send AGENTS.md / CLAUDE.md of the working folder as instructions',
    )
    .option(
      '--max-steps <n>',
      'model requests one turn may make before it ends max-steps (default 100)',
      wholeNumber(1),
    )
    .option(
      '--max-retries <n>',
      'retries of a failed model request, waiting with exponential backoff and honouring retry-after (default 3)',
      wholeNumber(0),
    );
}

/** `--instructions` or `--instructions-file` (not both); a missing file is bad input. */
export async function resolveFlagInstructions(flags: TurnFlags): Promise<string | undefined> {
  if (flags.instructions !== undefined && flags.instructionsFile !== undefined)
    throw new UsageError('give --instructions or --instructions-file, not both');
  if (flags.instructionsFile === undefined) return flags.instructions;
  return readFlagFile(`--instructions-file ${flags.instructionsFile}`, flags.instructionsFile);
}

// What Codex (AGENTS.md) and Claude Code (CLAUDE.md) read from the working folder, in that order.
const PROJECT_FILES = ['AGENTS.md', 'CLAUDE.md'] as const;

/** The project instruction files of a folder that exist, with their text. */
export async function readProjectInstructions(cwd: string): Promise<{ file: string; text: string }[]> {
  const found: { file: string; text: string }[] = [];
  for (const name of PROJECT_FILES) {
    const file = path.join(cwd, name);
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text !== undefined && text.trim() !== '') found.push({ file, text });
  }
  return found;
}

/**
 * The instructions of a session: the flag's text, then each project file under a heading naming it
 * (as Claude Code shows CLAUDE.md to the model); `undefined` when there are none.
 */
export async function composeInstructions(
  flagText: string | undefined,
  cwd: string,
  flags: Pick<TurnFlags, 'projectInstructions'>,
): Promise<string | undefined> {
  const project = flags.projectInstructions === false ? [] : await readProjectInstructions(cwd);
  const parts = [
    ...(flagText === undefined ? [] : [flagText]),
    ...project.map(
      ({ file, text }) => `# ${path.basename(file)} (instructions for ${cwd})\n\n${text.trimEnd()}`,
    ),
  ];
  return parts.length === 0 ? undefined : parts.join('\n\n');
}
