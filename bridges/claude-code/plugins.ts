import { existsSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { HookConfigError } from '../errors.js';
import type { HookSource, ScopedHookSource } from '../loadConfig.js';
import { readConfigFile } from '../readConfigFile.js';

/** A Claude Code plugin folder, loaded. */
export interface LoadedPlugin {
  readonly name: string;
  readonly root: string;
  /** `CLAUDE_PLUGIN_DATA`: a per-plugin directory that persists across runs. */
  readonly dataDir: string;
  /** Its hooks configs, each scoped with the plugin's placeholders and environment. */
  readonly sources: readonly ScopedHookSource[];
}

/** Where plugin data directories live by default: `$XDG_DATA_HOME/seamchart/plugins` (or `~/.local/share/…`). */
export function defaultPluginDataDir(): string {
  const base = process.env.XDG_DATA_HOME || path.join(homedir(), '.local', 'share');
  return path.join(base, 'seamchart', 'plugins');
}

async function readManifest(file: string): Promise<Record<string, unknown> | undefined> {
  const raw = await readConfigFile(file, 'undefined');
  if (raw === undefined) return undefined;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new HookConfigError('HOOK_CONFIG_INVALID', file, '', 'must be an object');
  return raw as Record<string, unknown>;
}

/** The hooks configs a manifest's `hooks` field names: a path, a list of paths, or an inline config. */
function manifestHooks(manifest: Record<string, unknown>, root: string, file: string): HookSource[] {
  const value = manifest.hooks;
  if (value === undefined) return [];
  if (typeof value === 'string') return [path.resolve(root, value)];
  if (Array.isArray(value)) {
    return value.map((entry, i) => {
      if (typeof entry !== 'string' || entry === '')
        throw new HookConfigError(
          'HOOK_CONFIG_INVALID',
          file,
          `hooks[${i}]`,
          'must be a path to a hooks file',
        );
      return path.resolve(root, entry);
    });
  }
  if (typeof value === 'object' && value !== null) return [value as Record<string, unknown>];
  throw new HookConfigError(
    'HOOK_CONFIG_INVALID',
    file,
    'hooks',
    'must be a path, a list of paths or a hooks object',
  );
}

/** How a client lays out and announces a plugin: where its manifest is, which variables its hooks get. */
export interface PluginFlavor {
  /** Manifest folders tried in order (`.claude-plugin`; Codex: `.codex-plugin`, then `.claude-plugin`). */
  readonly manifestDirs: readonly string[];
  /** The variables a hook of the plugin gets (also substituted as `${NAME}` in its commands). */
  variables(root: string, dataDir: string): Record<string, string>;
}

/** Claude Code: `.claude-plugin/plugin.json`; `CLAUDE_PLUGIN_ROOT` and `CLAUDE_PLUGIN_DATA`. */
export const claudePluginFlavor: PluginFlavor = {
  manifestDirs: ['.claude-plugin'],
  variables: (root, dataDir) => ({ CLAUDE_PLUGIN_ROOT: root, CLAUDE_PLUGIN_DATA: dataDir }),
};

/**
 * Loads a plugin folder: its manifest (optional; its `name`, and `hooks` naming more hooks files)
 * and `hooks/hooks.json`. Its hooks get the flavor's variables (Claude Code: `CLAUDE_PLUGIN_ROOT`,
 * `CLAUDE_PLUGIN_DATA`, the data directory created here) substituted and in their environment.
 * @param dir the plugin folder
 * @param dataRoot where per-plugin data directories live
 * @param flavor the client whose plugin layout and variables apply
 */
export async function loadPlugin(
  dir: string,
  dataRoot: string,
  flavor: PluginFlavor = claudePluginFlavor,
): Promise<LoadedPlugin> {
  const root = path.resolve(dir);
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory())
    throw new HookConfigError('HOOK_CONFIG_UNREADABLE', root, '', 'is not a plugin directory');
  const candidates = flavor.manifestDirs.map((manifestDir) => path.join(root, manifestDir, 'plugin.json'));
  const manifestFile = candidates.find((file) => existsSync(file)) ?? (candidates[0] as string);
  const manifest = await readManifest(manifestFile);
  const declared = manifest?.name;
  if (declared !== undefined && (typeof declared !== 'string' || declared.trim() === ''))
    throw new HookConfigError('HOOK_CONFIG_INVALID', manifestFile, 'name', 'must be a non-empty string');
  const name = (declared as string | undefined) ?? path.basename(root);
  const defaultHooks = path.join(root, 'hooks', 'hooks.json');
  const named = manifest === undefined ? [] : manifestHooks(manifest, root, manifestFile);
  const configs: HookSource[] = [
    ...(existsSync(defaultHooks) ? [defaultHooks] : []),
    ...named.filter((source) => source !== defaultHooks),
  ];
  const dataDir = path.join(dataRoot, name.replace(/[^A-Za-z0-9._-]/g, '-'));
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const variables = flavor.variables(root, dataDir);
  const substitutions = Object.fromEntries(
    Object.entries(variables).map(([name, value]) => [`\${${name}}`, value]),
  );
  return {
    name,
    root,
    dataDir,
    sources: configs.map((source) => ({ source, substitutions, env: variables, plugin: name })),
  };
}
