import type { DialectRules } from '../dialect.js';

/** The Codex CLI hook protocol. */
export const codexRules: DialectRules = Object.freeze({
  dialect: 'codex',
  pluginName: 'codex-hooks',
  stdinNewline: false,
  dedupeCommands: false,
  postToolBlock: 'replace-output',
  missingTranscript: null,
  codexPayloadFields: true,
  // Codex gives each SessionStart hook its own file under both names (codex-rs/hooks session_start_env_file.rs).
  envFileVariables: ['CODEX_ENV_FILE', 'CLAUDE_ENV_FILE'],
  blockKeepsContext: true,
  claudeTranscript: false,
  extraEnv: () => ({}),
});
