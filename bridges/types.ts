import type { JsonValue } from '../kernel/index.js';

/** The hook protocol a config is written for. */
export type Dialect = 'claude-code' | 'codex';

/** The hook events the bridges map onto seams. */
export const HookEvent = {
  sessionStart: 'SessionStart',
  userPromptSubmit: 'UserPromptSubmit',
  preToolUse: 'PreToolUse',
  postToolUse: 'PostToolUse',
  stop: 'Stop',
  permissionRequest: 'PermissionRequest',
} as const;
export type HookEventName = (typeof HookEvent)[keyof typeof HookEvent];

export const supportedHookEvents: readonly HookEventName[] = Object.freeze(Object.values(HookEvent));

/** Whether an event name from a config is one the bridges run. */
export function isSupportedHookEvent(name: string): name is HookEventName {
  return (supportedHookEvents as readonly string[]).includes(name);
}

/** One runnable command handler of a loaded config. */
export interface HookHandler {
  /** `<dialect>:<event>:<group>:<index>`, stable per config entry. */
  readonly id: string;
  readonly event: HookEventName;
  /** The matcher as written (absent for match-all groups and for events that ignore matchers). */
  readonly matcher?: string;
  readonly matches: (subject: string) => boolean;
  /** A matcher written on an event that ignores matchers (reported, not applied). */
  readonly ignoredMatcher?: string;
  /** The command after placeholder substitution (the program, in exec form). */
  readonly command: string;
  /** Exec form: the program's argv, run without a shell (placeholders substituted per element). */
  readonly args?: readonly string[];
  /** Handlers with the same key are identical (program, args and plugin): Claude runs them once. */
  readonly dedupeKey: string;
  /** The `if` condition (permission-rule syntax), tested against the call before the hook runs. */
  readonly condition?: HookCondition;
  /** `'block'`: a failed, timed-out or crashed hook counts as exit 2. */
  readonly onFailure: 'continue' | 'block';
  readonly timeoutMs: number;
  /** The file the handler came from, or `'<inline>'`. */
  readonly file: string;
  /** Variables only this handler gets (a plugin's `CLAUDE_PLUGIN_ROOT` and `CLAUDE_PLUGIN_DATA`). */
  readonly env: Readonly<Record<string, string>>;
  /** The plugin the handler came from, when it came from one. */
  readonly plugin?: string;
  /** Fields of the entry (or its group) the bridge does not act on as the client would, with what happens. */
  readonly unhonored: readonly string[];
  /** Fields the client ignores too (display-only, another dialect's), with what happens. */
  readonly notes: readonly string[];
  /** `async: true` runs in the background; `asyncRewake: true` also wakes the model when it exits 2. */
  readonly background?: 'async' | 'rewake';
  /** `asyncRewake`: the text put before the hook's output when it wakes the model. */
  readonly rewakeMessage?: string;
  /** `asyncRewake`: the line shown to the user when it wakes the model. */
  readonly rewakeSummary?: string;
}

/** A compiled `if` condition. */
export interface HookCondition {
  /** The rule as written (`Bash(git commit *)`). */
  readonly rule: string;
  /** Whether the hook runs for this call; calls the rule cannot judge run it (fail toward enforcement). */
  readonly test: (toolName: string, toolInput: unknown, cwd: string) => boolean;
}

/** A config entry that will not run, and why. */
export interface SkippedHandler {
  readonly id: string;
  readonly event: string;
  readonly file: string;
  readonly reason: string;
}

/** A loaded, validated hooks config of one dialect (several files merged, entries added up). */
export interface HookTable {
  readonly dialect: Dialect;
  readonly handlers: readonly HookHandler[];
  readonly skipped: readonly SkippedHandler[];
  /** Events present in the config that no seam maps (reported, never run). */
  readonly unsupportedEvents: readonly { readonly event: string; readonly file: string }[];
}

/** What one hook process did. */
export interface HookRun {
  /** `null` when the process died by a signal or never started. */
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** `background`: it went on in the background and decided nothing where it was started. */
  readonly outcome: 'exited' | 'timeout' | 'cancelled' | 'spawn-error' | 'background';
  readonly durationMs: number;
  /** Caps hit, spawn errors and the like, one line each. */
  readonly notes: readonly string[];
}

/** The decision rank of one hook, before mapping onto a seam. */
export type VerdictKind = 'block' | 'ask' | 'allow' | 'none';

/** One hook's decoded output. */
export interface HookVerdict {
  readonly kind: VerdictKind;
  /** Set when the hook failed in a way that yields no decision. */
  readonly failure?: 'error' | 'timeout';
  readonly reason?: string;
  /** Model-facing context (already capped). */
  readonly context?: string;
  /** Present when the hook said `continue: false`. */
  readonly stop?: { readonly reason?: string };
  readonly systemMessage?: string;
  /** Claude `updatedToolOutput` on PostToolUse. */
  readonly updatedToolOutput?: JsonValue;
  /** PreToolUse `updatedInput`: the whole input this hook wants the call to run with (checked by `tools/prepare`). */
  readonly updatedInput?: JsonValue;
  /** PermissionRequest `decision.interrupt: true`: the turn stops after this step. */
  readonly interrupt?: boolean;
  readonly notes: readonly string[];
}

/** The merged outcome of every hook that ran for one event. */
export interface MergedVerdict {
  readonly kind: VerdictKind;
  /** Reasons of the winning rank, blank-line joined, in config order. */
  readonly reason?: string;
  /** The handlers of the winning kind, comma-joined: who the log names as the decider. */
  readonly by?: string;
  readonly contexts: readonly string[];
  /** The handler of each context (same order; absent when the caller named no handlers). */
  readonly contextBy?: readonly string[];
  /** `by`: the handler that said `continue: false`. */
  readonly stop?: { readonly reason?: string; readonly by?: string };
  /** The handler whose `updatedToolOutput` won. */
  readonly updatedToolOutputBy?: string;
  readonly systemMessages: readonly string[];
  readonly updatedToolOutput?: JsonValue;
  /** Some hook asked to interrupt (PermissionRequest). */
  readonly interrupt?: boolean;
}

/** What became of one hook's PreToolUse `updatedInput` (the `updatedInput` field of `hook/result`). */
export type UpdatedInputFate = 'applied' | 'superseded' | 'not-honored';

/** The `decision` field of `hook/result`. */
export type LoggedDecision =
  | 'allow'
  | 'deny'
  | 'ask'
  | 'block'
  | 'continue'
  | 'stop'
  | 'none'
  | 'error'
  | 'timeout';
