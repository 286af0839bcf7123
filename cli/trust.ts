import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import {
  findProjectSettings,
  type ProjectSettings,
  rememberTrust,
  TrustFileError,
  trustFilePath,
  trustState,
} from '../index.js';
import { type CliIO, UsageError } from './command.js';
import type { AgentFlags } from './runFlags.js';

/** The folder's own settings files that may load (none when it is not trusted). */
export interface ProjectHookFiles {
  readonly claudeSettings: readonly string[];
  readonly codexHooks: readonly string[];
}

const NONE: ProjectHookFiles = { claudeSettings: [], codexHooks: [] };

function loadable(found: ProjectSettings): ProjectHookFiles {
  return {
    claudeSettings: found.files.filter((f) => f.dialect === 'claude-code').map((f) => f.path),
    codexHooks: found.files.filter((f) => f.dialect === 'codex').map((f) => f.path),
  };
}

const names = (found: ProjectSettings): string => found.files.map((f) => f.file).join(', ');

type Answer = 'yes' | 'no' | 'ended' | 'interrupted';

/** Asks at the terminal: `ended` when input closed before an answer, `interrupted` on Ctrl-C. */
async function askTrust(io: CliIO, found: ProjectSettings, changed: boolean): Promise<Answer> {
  const out = io.stderr;
  out.write(
    changed
      ? `\nThe settings of ${found.folder} changed since you trusted it. They would load:\n`
      : `\n${found.folder} has settings of its own. Trusting the folder loads them, and their hooks run commands here:\n`,
  );
  for (const file of found.files) out.write(`  ${file.file}: ${file.summary}\n`);
  const rl = createInterface({
    input: io.stdin,
    output: io.stderr as NodeJS.WritableStream,
    terminal: true,
  });
  const withdrawn = new AbortController();
  let interrupted = false;
  rl.on('SIGINT', () => {
    interrupted = true;
    withdrawn.abort();
  });
  rl.once('close', () => withdrawn.abort());
  try {
    for (;;) {
      const answer = (
        await rl.question('Trust this folder and load them? [y/N] ', { signal: withdrawn.signal })
      )
        .trim()
        .toLowerCase();
      if (answer === 'y' || answer === 'yes') return 'yes';
      if (answer === '' || answer === 'n' || answer === 'no') return 'no';
    }
  } catch {
    return interrupted ? 'interrupted' : 'ended';
  } finally {
    rl.close();
  }
}

/**
 * The working folder's own settings (`.claude/settings.json`, `.claude/settings.local.json`,
 * `.codex/hooks.json`) load only when the folder is trusted for exactly these contents: `--trust`,
 * a remembered yes, or a yes at the terminal (remembered). Otherwise nothing loads and one line on
 * stderr says why. Files the person named with `--claude-settings`/`--codex-hooks` are theirs: not asked about.
 * @returns the files to load, or `interrupted` when Ctrl-C answered the question
 */
export async function trustedProjectFiles(options: {
  cwd: string;
  flags: AgentFlags;
  io: CliIO;
  /** Whether a person can be asked (stdin and stderr are terminals, and the protocol does not own them). */
  canAsk: boolean;
  /** How stderr lines start (`seamchart`, `seamchart acp`). */
  prefix: string;
}): Promise<ProjectHookFiles | 'interrupted'> {
  const { cwd, flags, io, prefix } = options;
  const explicit = [...(flags.claudeSettings ?? []), ...(flags.codexHooks ?? [])].map((f) => path.resolve(f));
  const found = await findProjectSettings(cwd, explicit, io.env.HOME);
  if (found.files.length === 0) return NONE;
  const trustFile = trustFilePath(io.env);
  try {
    if (flags.trust === true) {
      await rememberTrust(trustFile, found, true);
      return loadable(found);
    }
    const state = await trustState(trustFile, found);
    if (state === 'trusted') return loadable(found);
    const say = (why: string): ProjectHookFiles => {
      io.stderr.write(`${prefix}: not loading ${names(found)} of ${found.folder}: ${why}\n`);
      return NONE;
    };
    if (state === 'declined') return say('you declined to trust this folder (pass --trust to load them)');
    if (!options.canAsk)
      return say(
        state === 'changed'
          ? 'they changed since you trusted the folder (answer at a terminal, or pass --trust)'
          : 'the folder is not trusted (answer at a terminal, or pass --trust)',
      );
    const answer = await askTrust(io, found, state === 'changed');
    if (answer === 'interrupted') return 'interrupted';
    if (answer === 'ended') return say('standard input ended before an answer (nothing remembered)');
    await rememberTrust(trustFile, found, answer === 'yes');
    return answer === 'yes'
      ? loadable(found)
      : say('you declined to trust this folder (pass --trust to load them)');
  } catch (error) {
    if (error instanceof TrustFileError) throw new UsageError(error.message);
    throw error;
  }
}
