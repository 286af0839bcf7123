import { createHookBridge, type HookBridge } from '../bridge.js';
import { loadHookTable } from '../loadConfig.js';
import { type HookBridgeOptions, optionalString, resolveHookBridgeOptions } from '../options.js';
import { type HookSourceArgument, splitSourceArgument } from '../sources.js';
import { claudeCodeRules } from './rules.js';

/** Options of `claudeCodeHooks`. */
export interface ClaudeCodeHooksOptions extends HookBridgeOptions {
  /** Settings files (`.claude/settings.json`, `settings.local.json`, plugin `hooks/hooks.json`…); entries add up. */
  settingsFiles?: readonly string[];
  /** Substituted for `${CLAUDE_PROJECT_DIR}` and exported as `CLAUDE_PROJECT_DIR` (default: the session cwd). */
  projectDir?: string;
  /** Substituted for `${CLAUDE_PLUGIN_ROOT}` and exported as `CLAUDE_PLUGIN_ROOT`. */
  pluginRoot?: string;
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
  const split = splitSourceArgument(FACTORY, settingsOrPath, options, 'settingsFiles');
  const resolved = resolveHookBridgeOptions(FACTORY, split.options);
  const projectDir = optionalString(FACTORY, split.options, 'projectDir');
  const pluginRoot = optionalString(FACTORY, split.options, 'pluginRoot');
  const substitutions: Record<string, string> = {
    ...(projectDir === undefined ? {} : { '${CLAUDE_PROJECT_DIR}': projectDir }),
    ...(pluginRoot === undefined ? {} : { '${CLAUDE_PLUGIN_ROOT}': pluginRoot }),
  };
  const table = await loadHookTable(split.sources, { dialect: 'claude-code', substitutions });
  const rules = claudeCodeRules({
    ...(projectDir === undefined ? {} : { projectDir }),
    ...(pluginRoot === undefined ? {} : { pluginRoot }),
  });
  return createHookBridge({ rules, table, options: resolved });
}
