import { describeReceived } from '../kernel/index.js';

/** Options both bridges take. */
export interface HookBridgeOptions {
  /** Remove environment variables whose names look like credentials (default false). */
  scrubCredentials?: boolean;
  /** Stop-hook continuations allowed per turn (default 8). */
  stopContinuationCap?: number;
  /** The session's JSONL log path, sent as `transcript_path` (default: not persisted). */
  transcriptPath?: string;
  /** Cap of each of stdout and stderr per hook (default 1 MiB). */
  maxOutputBytes?: number;
  /** Time between SIGTERM and SIGKILL when a hook is killed (default 1000 ms). */
  killGraceMs?: number;
  /** Length of `hook/result.stderrSummary` (default 500 characters). */
  stderrSummaryChars?: number;
  /** The agent's `sessionStartTimeoutMs`, to flag SessionStart hooks that outlive it (default 60000). */
  sessionStartTimeoutMs?: number;
}

/** `HookBridgeOptions` with every default filled in. */
export type ResolvedHookBridgeOptions = Required<Omit<HookBridgeOptions, 'transcriptPath'>> & {
  readonly transcriptPath: string | undefined;
};

const DEFAULTS = {
  scrubCredentials: false,
  stopContinuationCap: 8,
  maxOutputBytes: 1024 * 1024,
  killGraceMs: 1000,
  stderrSummaryChars: 500,
  sessionStartTimeoutMs: 60_000,
} as const;

/** Throws a `TypeError` naming the option, what was expected and what was received. */
export function failOption(factory: string, option: string, expected: string, value: unknown): never {
  throw new TypeError(
    `Expected the \`${option}\` option of ${factory}() to be ${expected}, got ${describeReceived(value)}`,
  );
}

function integer(factory: string, raw: Record<string, unknown>, option: keyof typeof DEFAULTS, min: number) {
  const value = raw[option];
  if (value === undefined) return DEFAULTS[option] as number;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
    failOption(factory, option, min > 0 ? 'a positive integer' : 'a non-negative integer', value);
  return value;
}

/** An optional non-empty string option. */
export function optionalString(
  factory: string,
  raw: Record<string, unknown>,
  option: string,
): string | undefined {
  const value = raw[option];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') failOption(factory, option, 'a non-empty string', value);
  return value;
}

/**
 * Validates the shared bridge options and fills the defaults.
 * @param factory the factory name, for error messages
 * @param raw the options object as given
 */
export function resolveHookBridgeOptions(
  factory: string,
  raw: Record<string, unknown>,
): ResolvedHookBridgeOptions {
  const scrub = raw.scrubCredentials;
  if (scrub !== undefined && typeof scrub !== 'boolean')
    failOption(factory, 'scrubCredentials', 'a boolean', scrub);
  return {
    scrubCredentials: scrub ?? DEFAULTS.scrubCredentials,
    stopContinuationCap: integer(factory, raw, 'stopContinuationCap', 0),
    transcriptPath: optionalString(factory, raw, 'transcriptPath'),
    maxOutputBytes: integer(factory, raw, 'maxOutputBytes', 1),
    killGraceMs: integer(factory, raw, 'killGraceMs', 0),
    stderrSummaryChars: integer(factory, raw, 'stderrSummaryChars', 1),
    sessionStartTimeoutMs: integer(factory, raw, 'sessionStartTimeoutMs', 0),
  };
}
