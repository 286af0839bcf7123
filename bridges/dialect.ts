import type { Dialect } from './types.js';

/** Where the two hook protocols differ, as data (the shared code reads these, never the dialect name). */
export interface DialectRules {
  readonly dialect: Dialect;
  /** The plugin (and listener-name prefix) of the bridge. */
  readonly pluginName: string;
  /** Whether stdin ends with a newline after the JSON payload. */
  readonly stdinNewline: boolean;
  /** Whether identical commands of one event run once. */
  readonly dedupeCommands: boolean;
  /** PostToolUse block: keep the original output and add the reason, or replace it with the reason. */
  readonly postToolBlock: 'keep-output' | 'replace-output';
  /** `transcript_path` when the session is not persisted. */
  readonly missingTranscript: '' | null;
  /** Codex stamps `model`, `permission_mode` and `turn_id` on payloads. */
  readonly codexPayloadFields: boolean;
  /** Variables naming a SessionStart hook's env file (sourced before each later Bash command). */
  readonly envFileVariables: readonly string[];
  /** Whether a blocked prompt keeps the blocking hooks' additional context (Codex). */
  readonly blockKeepsContext: boolean;
  /** Whether `transcript_path` names a Claude-format transcript the bridge writes. */
  readonly claudeTranscript: boolean;
  /** Whether a hook may turn itself into a background run with `{"async":true}` on its first stdout line. */
  readonly asyncAnswer: boolean;
  /** Handler fields of the other dialect this one ignores (with why), e.g. Codex and Claude's `if`. */
  readonly ignoredFields: Readonly<Record<string, string>>;
  /** Variables the dialect adds to every hook's environment. */
  extraEnv(context: { cwd: string }): Record<string, string>;
}
