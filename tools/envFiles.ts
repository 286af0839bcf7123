import { statSync } from 'node:fs';

function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * `command` preceded by sourcing each existing, non-empty env file in order (Claude Code's
 * `CLAUDE_ENV_FILE`); files that are gone or empty are skipped.
 * @param command the shell command as given
 * @param files the agent's shell env files (`exec.env.shellEnvFiles`)
 */
export function withEnvFiles(command: string, files: readonly string[]): string {
  const present = files.filter((file) => {
    try {
      const stat = statSync(file);
      return stat.isFile() && stat.size > 0;
    } catch {
      return false;
    }
  });
  if (present.length === 0) return command;
  return `${present.map((file) => `. ${quote(file)}`).join('\n')}\n${command}`;
}
