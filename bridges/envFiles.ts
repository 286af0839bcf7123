import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AgentHandle } from '../seams/index.js';
import type { HookHandler } from './types.js';

/** The env files of one SessionStart run: one fresh file per handler. */
export interface SessionEnvFiles {
  /** The variables naming this handler's file (created empty, mode 0600). */
  variablesFor(handler: HookHandler): Record<string, string>;
  /** Hands this handler's file to the agent's tools (call in config order). */
  hand(handler: HookHandler): void;
}

/**
 * `CLAUDE_ENV_FILE` (and the dialect's aliases) for SessionStart hooks: each hook writes its own
 * file, so parallel hooks never share one; the files go to the agent's tools in config order and
 * are removed when the agent is disposed.
 */
export class EnvFileStore {
  readonly #variables: readonly string[];
  readonly #dirs = new Map<string, string[]>();

  constructor(variables: readonly string[]) {
    this.#variables = variables;
  }

  /** Fresh files for one SessionStart run of `agent`. */
  forSession(agent: AgentHandle): SessionEnvFiles {
    const variables = this.#variables;
    const files = new Map<string, string>();
    let dir: string | undefined;
    const fileFor = (handler: HookHandler): string | undefined => {
      if (variables.length === 0) return undefined;
      const known = files.get(handler.id);
      if (known !== undefined) return known;
      if (dir === undefined) {
        dir = mkdtempSync(path.join(tmpdir(), 'seamchart-env-'));
        this.#dirs.set(agent.id, [...(this.#dirs.get(agent.id) ?? []), dir]);
      }
      const file = path.join(dir, `${handler.id.replace(/[^A-Za-z0-9_-]/g, '_')}.sh`);
      writeFileSync(file, '', { mode: 0o600 });
      files.set(handler.id, file);
      return file;
    };
    return {
      variablesFor(handler) {
        const file = fileFor(handler);
        return file === undefined ? {} : Object.fromEntries(variables.map((name) => [name, file]));
      },
      hand(handler) {
        const file = files.get(handler.id);
        if (file !== undefined) agent.env?.addShellEnvFile(file);
      },
    };
  }

  /** Removes the files made for `agentId` (at dispose). */
  release(agentId: string): void {
    for (const dir of this.#dirs.get(agentId) ?? []) rmSync(dir, { recursive: true, force: true });
    this.#dirs.delete(agentId);
  }
}
