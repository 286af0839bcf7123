// The Codex bridge's public face.
export { type CodexHooksOptions, codexHooks } from './codexHooks.js';
export { codexRules } from './rules.js';
