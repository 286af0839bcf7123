import type { AgentEnvironment, ToolEnvironment } from './types.js';

/**
 * A fresh agent environment channel: plugins add shell env files, tools read them.
 * @example
 * const env = createAgentEnvironment();
 * env.addShellEnvFile('/tmp/session-env/hook-0.sh');
 */
export function createAgentEnvironment(): AgentEnvironment {
  let files: readonly string[] = Object.freeze([]);
  return Object.freeze({
    get shellEnvFiles() {
      return files;
    },
    addShellEnvFile(file: string): void {
      if (typeof file !== 'string' || file === '')
        throw new TypeError(`Expected addShellEnvFile() to receive a file path, got ${JSON.stringify(file)}`);
      if (!files.includes(file)) files = Object.freeze([...files, file]);
    },
  });
}

/** The read-only face of an agent environment that tools get as `exec.env` (it follows later additions). */
export function toolEnvironmentOf(env: AgentEnvironment): ToolEnvironment {
  return Object.freeze({
    get shellEnvFiles() {
      return env.shellEnvFiles;
    },
  });
}
