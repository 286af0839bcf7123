// The Claude Code bridge's public face.
export { type ClaudeCodeHooksOptions, claudeCodeHooks } from './claudeCodeHooks.js';
export { defaultPluginDataDir, loadPlugin, type PluginFlavor } from './plugins.js';
export { claudeCodeRules } from './rules.js';
