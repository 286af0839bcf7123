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
  extraEnv: () => ({}),
});
