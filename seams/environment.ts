import type { AgentEnvironment, ProcessPlace, ToolEnvironment } from './types.js';

// Classes, not object literals with getters: those are slow-mode dictionaries in V8 (~250 B per agent).
const noFiles: readonly string[] = Object.freeze([]);
const noVariables: Readonly<Record<string, string>> = Object.freeze({});
type EnvProvider = (place: ProcessPlace) => Readonly<Record<string, string>> | undefined;

/** The agent's environment channel: its shell env files live in a private field, so it can be frozen. */
class EnvironmentChannel implements AgentEnvironment {
  #files: readonly string[] = noFiles;
  #providers: readonly EnvProvider[] = [];

  // An own function, so `files.forEach(env.addShellEnvFile)` works as it did with the object literal.
  readonly addShellEnvFile = (file: string): void => {
    if (typeof file !== 'string' || file === '')
      throw new TypeError(`Expected addShellEnvFile() to receive a file path, got ${JSON.stringify(file)}`);
    if (!this.#files.includes(file)) this.#files = Object.freeze([...this.#files, file]);
  };

  readonly addProcessEnv = (provider: EnvProvider): (() => void) => {
    if (typeof provider !== 'function')
      throw new TypeError('Expected addProcessEnv() to receive a function of the process place');
    this.#providers = [...this.#providers, provider];
    return () => {
      this.#providers = this.#providers.filter((entry) => entry !== provider);
    };
  };

  readonly processEnvFor = (place: ProcessPlace): Readonly<Record<string, string>> => {
    if (this.#providers.length === 0) return noVariables;
    return Object.assign({}, ...this.#providers.map((provider) => provider(place) ?? noVariables));
  };

  constructor() {
    Object.freeze(this);
  }

  get shellEnvFiles(): readonly string[] {
    return this.#files;
  }

  // A getter is not an own property: without this, JSON.stringify(env) would be `{}`.
  toJSON(): { shellEnvFiles: readonly string[] } {
    return { shellEnvFiles: this.#files };
  }
}

/** The read-only face of an environment channel: it follows later additions. */
class ToolEnvironmentView implements ToolEnvironment {
  readonly #env: AgentEnvironment;

  constructor(env: AgentEnvironment) {
    this.#env = env;
    Object.freeze(this);
  }

  get shellEnvFiles(): readonly string[] {
    return this.#env.shellEnvFiles;
  }

  processEnvFor(place: ProcessPlace): Readonly<Record<string, string>> {
    return this.#env.processEnvFor?.(place) ?? noVariables;
  }

  toJSON(): { shellEnvFiles: readonly string[] } {
    return { shellEnvFiles: this.#env.shellEnvFiles };
  }
}

/**
 * A fresh agent environment channel: plugins add shell env files, tools read them.
 * @example
 * const env = createAgentEnvironment();
 * env.addShellEnvFile('/tmp/session-env/hook-0.sh');
 */
export function createAgentEnvironment(): AgentEnvironment {
  return new EnvironmentChannel();
}

/** The read-only face of an agent environment that tools get as `exec.env` (it follows later additions). */
export function toolEnvironmentOf(env: AgentEnvironment): ToolEnvironment {
  return new ToolEnvironmentView(env);
}
