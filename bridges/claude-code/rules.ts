import type { DialectRules } from '../dialect.js';

/** Claude Code's hook protocol, for a project dir and plugin root (either may be unset). */
export function claudeCodeRules(settings: { projectDir?: string; pluginRoot?: string }): DialectRules {
  return {
    dialect: 'claude-code',
    pluginName: 'claude-code-hooks',
    stdinNewline: true,
    dedupeCommands: true,
    postToolBlock: 'keep-output',
    missingTranscript: '',
    codexPayloadFields: false,
    envFileVariables: ['CLAUDE_ENV_FILE'],
    blockKeepsContext: false,
    claudeTranscript: true,
    asyncAnswer: true,
    ignoredFields: {},
    extraEnv: ({ cwd }) => ({
      CLAUDE_PROJECT_DIR: settings.projectDir ?? cwd,
      ...(settings.pluginRoot === undefined ? {} : { CLAUDE_PLUGIN_ROOT: settings.pluginRoot }),
      // Claude Code runs with CLAUDECODE=1 and its hooks inherit it; some scripts test for it.
      CLAUDECODE: '1',
    }),
  };
}
