import { homedir } from 'node:os';
import path from 'node:path';
import { createHookBridge, type HookBridge } from '../bridge.js';
import type { BridgePermissions } from '../fire.js';
import { type HookSource, loadHookTable } from '../loadConfig.js';
import { failOption, type HookBridgeOptions, optionalString, resolveHookBridgeOptions } from '../options.js';
import { loadPermissionSet, type PermissionMode, parsePermissionMode } from '../permissions.js';
import { readConfigFile } from '../readConfigFile.js';
import { type HookSourceArgument, splitSourceArgument } from '../sources.js';
import { defaultPluginDataDir, loadPlugin } from './plugins.js';
import { claudeCodeRules } from './rules.js';

/** Options of `claudeCodeHooks`. */
export interface ClaudeCodeHooksOptions extends HookBridgeOptions {
  /** Settings files (`.claude/settings.json`, `settings.local.json`, plugin `hooks/hooks.json`…); entries add up. */
  settingsFiles?: readonly string[];
  /** Substituted for `${CLAUDE_PROJECT_DIR}` and exported as `CLAUDE_PROJECT_DIR` (default: the session cwd). */
  projectDir?: string;
  /** Substituted for `${CLAUDE_PLUGIN_ROOT}` in the settings files and exported as `CLAUDE_PLUGIN_ROOT`. */
  pluginRoot?: string;
  /** Claude Code plugin folders (`.claude-plugin/plugin.json`, `hooks/hooks.json`), loaded after the settings files. */
  plugins?: readonly string[];
  /** Where each plugin's `CLAUDE_PLUGIN_DATA` directory is kept (default `$XDG_DATA_HOME/seamchart/plugins`). */
  pluginDataDir?: string;
  /**
   * The permission mode of each session (default: the settings' `defaultMode`); a function lets a
   * host switch modes per session (ACP session modes).
   */
  permissionMode?: PermissionMode | ((agentId: string | undefined) => PermissionMode);
}

const FACTORY = 'claudeCodeHooks';

/**
 * Loads Claude Code hook settings and returns a seam plugin that runs them; a malformed file
 * rejects with `HookConfigError` naming the file and the JSON path.
 * @param settingsOrPath a settings path, a settings object, a list of them, or `{ settingsFiles, ...options }`
 * @param options project dir, plugin root, credential scrub, Stop cap…
 * @example
 * const hooks = await claudeCodeHooks('.claude/settings.json', { projectDir: process.cwd() });
 * seams.use(hooks);
 * console.log(formatCapabilities(hooks.capabilities()));
 */
export async function claudeCodeHooks(
  settingsOrPath: HookSourceArgument | ClaudeCodeHooksOptions,
  options?: ClaudeCodeHooksOptions,
): Promise<HookBridge> {
  const split = splitSourceArgument(FACTORY, settingsOrPath, options, 'settingsFiles', ['plugins']);
  const resolved = resolveHookBridgeOptions(FACTORY, split.options);
  const projectDir = optionalString(FACTORY, split.options, 'projectDir');
  const pluginRoot = optionalString(FACTORY, split.options, 'pluginRoot');
  const substitutions: Record<string, string> = {
    ...(projectDir === undefined ? {} : { '${CLAUDE_PROJECT_DIR}': projectDir }),
    ...(pluginRoot === undefined ? {} : { '${CLAUDE_PLUGIN_ROOT}': pluginRoot }),
  };
  const pluginDirs = split.options.plugins;
  if (
    pluginDirs !== undefined &&
    (!Array.isArray(pluginDirs) || pluginDirs.some((d) => typeof d !== 'string' || d === ''))
  )
    failOption(FACTORY, 'plugins', 'an array of plugin directories', pluginDirs);
  const dataRoot = optionalString(FACTORY, split.options, 'pluginDataDir') ?? defaultPluginDataDir();
  const plugins = [];
  for (const dir of (pluginDirs as string[] | undefined) ?? []) plugins.push(await loadPlugin(dir, dataRoot));
  const table = await loadHookTable([...split.sources, ...plugins.flatMap((plugin) => plugin.sources)], {
    dialect: 'claude-code',
    substitutions,
    // A placeholder nobody set must never reach a shell as a literal (`sh` would run `/hooks/x.sh`).
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's placeholder syntax, not a template
    requiredPlaceholders: ['${CLAUDE_PLUGIN_ROOT}', '${CLAUDE_PLUGIN_DATA}'],
    conditionDirs: { ...(projectDir === undefined ? {} : { projectDir }), home: homedir() },
  });
  const permissions = await loadPermissions(split.sources, split.options.permissionMode);
  const rules = claudeCodeRules({
    ...(projectDir === undefined ? {} : { projectDir }),
    ...(pluginRoot === undefined ? {} : { pluginRoot }),
  });
  return createHookBridge({ rules, table, options: resolved, ...(permissions ? { permissions } : {}) });
}

/** The `permissions` blocks of the settings files, merged; `undefined` when no file has one. */
async function loadPermissions(
  sources: readonly HookSource[],
  mode: unknown,
): Promise<BridgePermissions | undefined> {
  const files = [];
  for (const source of sources) {
    const file = typeof source === 'string' ? path.resolve(source) : '<inline>';
    const settings = typeof source === 'string' ? await readConfigFile(file) : source;
    files.push({ file, settings });
  }
  const hasBlock = files.some(
    ({ settings }) => settings !== null && typeof settings === 'object' && 'permissions' in settings,
  );
  if (mode !== undefined && typeof mode !== 'function' && parsePermissionMode(String(mode)) === undefined)
    failOption(FACTORY, 'permissionMode', 'default, acceptEdits, plan, dontAsk or bypassPermissions', mode);
  if (!hasBlock && mode === undefined) return undefined;
  const set = loadPermissionSet(files);
  const fixed = typeof mode === 'string' ? parsePermissionMode(mode) : undefined;
  const modeFor =
    typeof mode === 'function'
      ? (mode as (agentId: string | undefined) => PermissionMode)
      : () => fixed ?? set.defaultMode;
  return { set, modeFor };
}
