import { createHookBridge, type HookBridge } from '../bridge.js';
import { loadHookTable } from '../loadConfig.js';
import { type HookBridgeOptions, optionalString, resolveHookBridgeOptions } from '../options.js';
import { type HookSourceArgument, splitSourceArgument } from '../sources.js';
import { codexRules } from './rules.js';

/** Options of `codexHooks`. */
export interface CodexHooksOptions extends HookBridgeOptions {
  /** `hooks.json` files (`~/.codex/hooks.json`, `<repo>/.codex/hooks.json`…); entries add up. */
  configFiles?: readonly string[];
  /** The `model` field of every payload (default `""`). */
  model?: string;
}

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
  const split = splitSourceArgument(FACTORY, configOrPath, options, 'configFiles');
  const resolved = resolveHookBridgeOptions(FACTORY, split.options);
  const model = optionalString(FACTORY, split.options, 'model');
  const table = await loadHookTable(split.sources, {
    dialect: 'codex',
    ignoredFields: codexRules.ignoredFields,
    // A placeholder nobody set must never reach a shell as a literal (it would expand to nothing).
    requiredPlaceholders: ['CLAUDE_PLUGIN_ROOT', 'PLUGIN_ROOT', 'CLAUDE_PLUGIN_DATA', 'PLUGIN_DATA'].map(
      (name) => `\${${name}}`,
    ),
  });
  return createHookBridge({ rules: codexRules, table, options: resolved, ...(model ? { model } : {}) });
}
