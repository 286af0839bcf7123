// A name segment that usually marks a secret: OPENAI_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASSWORD…
const CREDENTIAL_NAME =
  /(?:^|_)(?:API_?KEY|KEY|KEYS|TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASS|CREDENTIALS?|AUTH|PRIVATE)(?:_|$)/i;

/** Whether an environment variable name looks like it holds a credential. */
export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME.test(name);
}

/** What `buildHookEnv` adds to and removes from the process environment. */
export interface HookEnvOptions {
  readonly base: NodeJS.ProcessEnv;
  /** Set after scrubbing, so a bridge's own variables always reach the hook. */
  readonly extra: Readonly<Record<string, string>>;
  readonly scrubCredentials: boolean;
}

/**
 * The environment of a hook process: the base environment (minus credential-looking names when
 * asked) plus the dialect's own variables.
 * @param options base environment, extra variables, scrub switch
 */
export function buildHookEnv(options: HookEnvOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(options.base)) {
    if (value === undefined) continue;
    if (options.scrubCredentials && isCredentialName(name)) continue;
    env[name] = value;
  }
  return Object.assign(env, options.extra);
}
