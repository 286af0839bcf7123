import { createHookBridge, type HookBridge } from '../bridge.js';
import { defaultPluginDataDir, loadPlugin, type PluginFlavor } from '../claude-code/index.js';
import { loadHookTable } from '../loadConfig.js';
import { failOption, type HookBridgeOptions, optionalString, resolveHookBridgeOptions } from '../options.js';
import { type HookSourceArgument, splitSourceArgument } from '../sources.js';
import { codexRules } from './rules.js';

/** Options of `codexHooks`. */
export interface CodexHooksOptions extends HookBridgeOptions {
  /** `hooks.json` files (`~/.codex/hooks.json`, `<repo>/.codex/hooks.json`…); entries add up. */
  configFiles?: readonly string[];
  /** The `model` field of every payload (default `""`). */
  model?: string;
  /** Plugin folders (`.codex-plugin/plugin.json` or `.claude-plugin/plugin.json`, `hooks/hooks.json`), loaded after the config files. */
  plugins?: readonly string[];
  /** Where each plugin's `PLUGIN_DATA` directory is kept (default `$XDG_DATA_HOME/seamchart/plugins`). */
  pluginDataDir?: string;
}

/** Codex's plugin loader: `PLUGIN_ROOT`/`PLUGIN_DATA`, and the `CLAUDE_` names for plugins written for Claude Code. */
const codexPluginFlavor: PluginFlavor = {
  manifestDirs: ['.codex-plugin', '.claude-plugin'],
  variables: (root, dataDir) => ({
    PLUGIN_ROOT: root,
    CLAUDE_PLUGIN_ROOT: root,
    PLUGIN_DATA: dataDir,
    CLAUDE_PLUGIN_DATA: dataDir,
  }),
};

const FACTORY = 'codexHooks';

/**
 * Loads Codex `hooks.json` files and returns a seam plugin that runs them; a malformed file
 * rejects with `HookConfigError` naming the file and the JSON path.
 * @param configOrPath a hooks.json path, a config object, a list of them, or `{ configFiles, ...options }`
 * @param options model name, credential scrub, Stop cap…
 * @example
 * const hooks = await codexHooks('.codex/hooks.json', { model: 'gpt-5' });
 * seams.use(hooks);
 */
export async function codexHooks(
  configOrPath: HookSourceArgument | CodexHooksOptions,
  options?: CodexHooksOptions,
): Promise<HookBridge> {
  const split = splitSourceArgument(FACTORY, configOrPath, options, 'configFiles', ['plugins']);
  const resolved = resolveHookBridgeOptions(FACTORY, split.options);
  const model = optionalString(FACTORY, split.options, 'model');
  const pluginDirs = split.options.plugins;
  if (
    pluginDirs !== undefined &&
    (!Array.isArray(pluginDirs) || pluginDirs.some((d) => typeof d !== 'string' || d === ''))
  )
    failOption(FACTORY, 'plugins', 'an array of plugin directories', pluginDirs);
  const dataRoot = optionalString(FACTORY, split.options, 'pluginDataDir') ?? defaultPluginDataDir();
  const plugins = [];
  for (const dir of (pluginDirs as string[] | undefined) ?? [])
    plugins.push(await loadPlugin(dir, dataRoot, codexPluginFlavor));
  const table = await loadHookTable([...split.sources, ...plugins.flatMap((plugin) => plugin.sources)], {
    dialect: 'codex',
    ignoredFields: codexRules.ignoredFields,
    // A placeholder nobody set must never reach a shell as a literal (it would expand to nothing).
    requiredPlaceholders: ['CLAUDE_PLUGIN_ROOT', 'PLUGIN_ROOT', 'CLAUDE_PLUGIN_DATA', 'PLUGIN_DATA'].map(
      (name) => `\${${name}}`,
    ),
  });
  return createHookBridge({ rules: codexRules, table, options: resolved, ...(model ? { model } : {}) });
}
