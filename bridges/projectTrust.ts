import { createHash } from 'node:crypto';
import { mkdir, readFile, realpath, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { Dialect } from './types.js';

/** The files a folder can bring that would run commands or decide calls: Claude Code's project layers and Codex's. */
export const PROJECT_SETTINGS_FILES: readonly { readonly file: string; readonly dialect: Dialect }[] = [
  { file: '.claude/settings.json', dialect: 'claude-code' },
  { file: '.claude/settings.local.json', dialect: 'claude-code' },
  { file: '.codex/hooks.json', dialect: 'codex' },
];

/** One project file found in a folder, with what a person should know before trusting it. */
export interface ProjectFile {
  /** Relative to the folder (`.claude/settings.json`). */
  readonly file: string;
  readonly path: string;
  readonly dialect: Dialect;
  /** A one-line account of what loading it would do (`hooks: PreToolUse, SessionStart; 3 permission rules`). */
  readonly summary: string;
}

/** What a folder would load, and the hash its trust is remembered under. */
export interface ProjectSettings {
  /** The folder, symlinks resolved (the key trust is remembered under). */
  readonly folder: string;
  readonly files: readonly ProjectFile[];
  /** SHA-256 (hex) over each file's relative path and bytes: a changed, added or removed file changes it. */
  readonly digest: string;
}

/** What was remembered for a folder: its answer holds only while the files hash the same. */
export type TrustState = 'trusted' | 'declined' | 'changed' | 'unknown';

const TrustEntry = z.object({
  digest: z.string(),
  trusted: z.boolean(),
  files: z.array(z.string()),
  at: z.string(),
});
const TrustFile = z.object({ version: z.literal(1), folders: z.record(z.string(), TrustEntry) });
type TrustFile = z.infer<typeof TrustFile>;

/** A trust file that cannot be read or parsed: never overwritten, the person is told where it is. */
export class TrustFileError extends Error {
  override readonly name = 'TrustFileError';
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`the trusted-folders file ${file} ${reason}; fix or remove it`);
  }
}

/**
 * Where trust answers are kept: `$SEAMCHART_DATA_HOME/trusted-folders.json`, else
 * `$XDG_DATA_HOME/seamchart/…` (default `~/.local/share/seamchart/…`).
 */
export function trustFilePath(env: NodeJS.ProcessEnv): string {
  const base =
    env.SEAMCHART_DATA_HOME ||
    path.join(env.XDG_DATA_HOME || path.join(env.HOME || homedir(), '.local', 'share'), 'seamchart');
  return path.join(base, 'trusted-folders.json');
}

/** Names what a settings object would do, without running or validating anything in it. */
function summarize(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not valid JSON (loading it would fail)';
  }
  if (value === null || typeof value !== 'object') return 'not a settings object';
  const parts: string[] = [];
  const hooks = (value as { hooks?: unknown }).hooks;
  if (hooks !== null && typeof hooks === 'object' && Object.keys(hooks).length > 0) {
    const commands = Object.values(hooks as Record<string, unknown>)
      .flatMap((groups) => (Array.isArray(groups) ? groups : []))
      .flatMap((group) => {
        const list = (group as { hooks?: unknown } | null)?.hooks;
        return Array.isArray(list) ? list : [];
      })
      .map((handler) => (handler as { command?: unknown } | null)?.command)
      .filter((command): command is string => typeof command === 'string');
    parts.push(
      `hooks on ${Object.keys(hooks).join(', ')} running ${commands.map((c) => `\`${c}\``).join(', ')}`,
    );
  }
  const permissions = (value as { permissions?: unknown }).permissions;
  if (permissions !== null && typeof permissions === 'object') {
    const rules = ['allow', 'ask', 'deny']
      .map((kind) => (permissions as Record<string, unknown>)[kind])
      .reduce<number>((sum, list) => sum + (Array.isArray(list) ? list.length : 0), 0);
    const mode = (permissions as { defaultMode?: unknown }).defaultMode;
    parts.push(`${rules} permission rule(s)${typeof mode === 'string' ? `, defaultMode ${mode}` : ''}`);
  }
  return parts.length === 0 ? 'no hooks or permissions' : parts.join('; ');
}

/**
 * The project files `folder` holds (`PROJECT_SETTINGS_FILES`), each summarised, and their hash.
 * @param exclude absolute paths already loaded by the person's own flags (`--claude-settings`): not the folder's to ask about
 * @param home the person's home folder, whose `.claude` is user settings (none found there)
 * @example
 * const found = await findProjectSettings(process.cwd());
 * if (found.files.length > 0) console.log(found.files.map((f) => f.summary));
 */
export async function findProjectSettings(
  folder: string,
  exclude: readonly string[] = [],
  home: string = homedir(),
): Promise<ProjectSettings> {
  const real = await realpath(folder);
  const excluded = new Set(await Promise.all(exclude.map((file) => realpath(file).catch(() => file))));
  const hash = createHash('sha256');
  const files: ProjectFile[] = [];
  // In the home folder, `.claude/settings.json` is the person's own user settings, not a project's.
  if (real === (await realpath(home).catch(() => home)))
    return { folder: real, files, digest: hash.digest('hex') };
  for (const { file, dialect } of PROJECT_SETTINGS_FILES) {
    const full = path.join(real, file);
    const bytes = await readFile(full).catch(() => undefined);
    if (bytes === undefined) continue;
    if (excluded.has(await realpath(full).catch(() => full))) continue;
    hash.update(`${file}\0${bytes.length}\0`).update(bytes);
    files.push({ file, path: full, dialect, summary: summarize(bytes.toString('utf8')) });
  }
  return { folder: real, files, digest: hash.digest('hex') };
}

async function readTrustFile(file: string): Promise<TrustFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, folders: {} };
    throw new TrustFileError(file, `cannot be read (${(error as Error).message})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new TrustFileError(file, 'is not valid JSON');
  }
  const parsed = TrustFile.safeParse(raw);
  if (!parsed.success) throw new TrustFileError(file, 'is not a trusted-folders file');
  return parsed.data;
}

/** What was answered for these files in this folder: an answer for other contents is `changed`. */
export async function trustState(trustFile: string, found: ProjectSettings): Promise<TrustState> {
  const entry = (await readTrustFile(trustFile)).folders[found.folder];
  if (entry === undefined) return 'unknown';
  if (entry.digest !== found.digest) return 'changed';
  return entry.trusted ? 'trusted' : 'declined';
}

/** Remembers an answer for the folder and these exact files (written whole, then renamed: never half a file). */
export async function rememberTrust(
  trustFile: string,
  found: ProjectSettings,
  trusted: boolean,
  now: Date = new Date(),
): Promise<void> {
  const current = await readTrustFile(trustFile);
  current.folders[found.folder] = {
    digest: found.digest,
    trusted,
    files: found.files.map((f) => f.file),
    at: now.toISOString(),
  };
  await mkdir(path.dirname(trustFile), { recursive: true, mode: 0o700 });
  const temporary = `${trustFile}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(current, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, trustFile);
}
