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
  asyncAnswer: false,
  // codex-rs/hooks reads neither: the hook runs for every matching call, through the shell.
  ignoredFields: {
    if: 'is a Claude Code field; Codex ignores it, so the hook runs on every matching call',
    args: 'is a Claude Code field; Codex ignores it and runs the command through the shell',
  },
  extraEnv: () => ({}),
});
