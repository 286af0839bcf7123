import type { HookBridge } from './bridge.js';
import { type ClaudeCodeHooksOptions, claudeCodeHooks } from './claude-code/index.js';
import { codexHooks } from './codex/index.js';
import type { HookBridgeOptions } from './options.js';

/** The hook config files the CLI was given. */
export interface HookPluginFiles {
  readonly claudeSettings: readonly string[];
  readonly codexHooks: readonly string[];
  /** Claude Code plugin folders (`--claude-plugin DIR`). */
  readonly claudePlugins?: readonly string[];
  /** Codex plugin folders (`--codex-plugin DIR`). */
  readonly codexPlugins?: readonly string[];
}

/**
 * Loads every hooks config the CLI was given: one Claude Code bridge for all `--claude-settings`
 * files and `--claude-plugin` folders, one Codex bridge for all `--codex-hooks` files (none for an empty list). A malformed file
 * rejects with `HookConfigError`, whose message names the file and the JSON path.
 * @param files the settings and hooks.json paths, in command-line order
 * @param options shared bridge options (credential scrub, Stop cap, transcript path…)
 * @example
 * const bridges = await loadHookPlugins({ claudeSettings: ['.claude/settings.json'], codexHooks: [] });
 * for (const bridge of bridges) seams.use(bridge);
 */
export async function loadHookPlugins(
  files: HookPluginFiles,
  options: HookBridgeOptions & Pick<ClaudeCodeHooksOptions, 'permissionMode'> = {},
): Promise<HookBridge[]> {
  const bridges: HookBridge[] = [];
  const plugins = files.claudePlugins ?? [];
  const { permissionMode, ...shared } = options;
  // A permission mode decides calls even without settings files (ACP session modes).
  if (files.claudeSettings.length > 0 || plugins.length > 0 || permissionMode !== undefined)
    bridges.push(
      await claudeCodeHooks({
        ...shared,
        settingsFiles: files.claudeSettings,
        plugins,
        ...(permissionMode === undefined ? {} : { permissionMode }),
      }),
    );
  const codexPlugins = files.codexPlugins ?? [];
  if (files.codexHooks.length > 0 || codexPlugins.length > 0)
    bridges.push(await codexHooks({ ...shared, configFiles: files.codexHooks, plugins: codexPlugins }));
  return bridges;
}
