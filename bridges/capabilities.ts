import type { BridgeRuntime } from './fire.js';
import type { Dialect, HookEventName, HookHandler } from './types.js';

/** What will happen for one configured handler. */
export interface HandlerCapability {
  readonly handlerId: string;
  readonly event: HookEventName;
  readonly seam: string;
  readonly command: string;
  readonly file: string;
  readonly matcher?: string;
  readonly timeoutMs: number;
  readonly honored: readonly string[];
  /** Where this handler, as configured, behaves differently from the original client (counted). */
  readonly degraded: readonly string[];
  /** Facts that match the original client but are worth knowing (not counted). */
  readonly notes: readonly string[];
}

/** `bridge.capabilities()`: honored, degraded and unsupported parts of the config. */
export interface CapabilityReport {
  readonly dialect: Dialect;
  readonly handlers: readonly HandlerCapability[];
  /** Entries that never run: unsupported events, handler types, async hooks. */
  readonly unsupported: readonly { readonly event: string; readonly file: string; readonly reason: string }[];
  /** Things that happened at run time (a Stop cap that was hit…). */
  readonly runtime: readonly string[];
  /** Per event with handlers: what differs only if a hook's output uses it (e.g. `defer`), once per event. */
  readonly caveats: Readonly<Partial<Record<HookEventName, readonly string[]>>>;
  /** The settings' permissions: where they came from, and what Claude Code would do differently. */
  readonly permissions?: PermissionsCapability;
  /** How many behaviours of this configuration differ from the original client (0: it runs as there). */
  readonly differences: number;
}

/** The `permissions` part of the report. */
export interface PermissionsCapability {
  readonly rules: number;
  readonly defaultMode: string;
  readonly defaultModeFile?: string;
  /** What Claude Code would do otherwise (a `defaultMode` seamchart cannot start in): counted. */
  readonly differences: readonly string[];
  /** Rules Claude Code skips too, modes it would not take either: noted, not counted. */
  readonly notes: readonly string[];
}

const SEAM: Record<HookEventName, string> = {
  SessionStart: 'agent/session-start',
  UserPromptSubmit: 'agent/prompt-submit',
  PreToolUse: 'tools/prepare + tools/pre-execute',
  PostToolUse: 'tools/post-execute',
  Stop: 'agent/turn-continuation',
  PermissionRequest: 'tools/approval',
};

const SYSTEM_MESSAGE = 'systemMessage is shown as a warning line, not in a dialog';

function honoredFor(dialect: Dialect, event: HookEventName, cap: number): string[] {
  const block = dialect === 'codex' ? 'exit 2 with a reason on stderr' : 'exit 2';
  switch (event) {
    case 'SessionStart':
      return [
        'additionalContext and plain stdout are injected before the first request',
        `each hook gets its own ${dialect === 'codex' ? 'CODEX_ENV_FILE / CLAUDE_ENV_FILE' : 'CLAUDE_ENV_FILE'}; the demo Bash tool sources them before each command`,
        'a hook that fails, times out or exits 2 is reported as agent/error',
      ];
    case 'UserPromptSubmit':
      return [
        `block (${block}, decision "block") rejects the turn`,
        'additionalContext and plain stdout become context',
        'continue:false rejects the turn with stopReason',
      ];
    case 'PreToolUse':
      return [
        'runs once per call, at tools/prepare; its decision is applied at tools/pre-execute',
        dialect === 'claude-code'
          ? 'updatedInput rewrites the call before identity is sealed (with any permissionDecision)'
          : 'updatedInput with permissionDecision "allow" rewrites the call before identity is sealed',
        'several updatedInputs apply in config order (the later entry wins, the earlier are recorded as superseded)',
        "an updatedInput the tool's schema refuses ends the call INVALID_ARGS, naming the hook",
        `deny (${block}, permissionDecision "deny", decision "block")`,
        ...(dialect === 'claude-code' ? ['ask goes to the approval channel'] : []),
        'additionalContext is recorded after the call result',
        'continue:false denies the call and stops the turn after this step',
      ];
    case 'PostToolUse':
      return [
        dialect === 'claude-code'
          ? 'decision "block" keeps the output and adds the reason'
          : 'decision "block" replaces the output with the reason',
        ...(dialect === 'claude-code' ? ['updatedToolOutput replaces the output shown to the model'] : []),
        'additionalContext is recorded after the call result',
        'continue:false stops the turn after this step',
      ];
    case 'Stop':
      return [
        `decision "block" (${block}) continues the turn with the reason, at most ${cap} times per turn`,
        'stop_hook_active is true once a Stop hook continued the turn',
        'continue:false stops the turn',
      ];
    case 'PermissionRequest':
      return [
        'runs when an ask reaches approval, before the approval channel (also when none is set)',
        'decision.behavior "allow" allows the call once; "deny" rejects it with decision.message',
        'decision.interrupt: true also stops the turn after this step',
        `${block} rejects the call with the reason`,
        'no decision falls through to the approval channel',
      ];
  }
}

/** What differs from the client only when a hook's output uses it (reported once per event, not counted). */
function caveatsFor(dialect: Dialect, event: HookEventName): string[] {
  switch (event) {
    case 'SessionStart':
      return [
        'not recorded as hook/* (no turn is open); failures are reported as agent/error',
        'initialUserMessage, sessionTitle and watchPaths are ignored',
      ];
    case 'UserPromptSubmit':
      return [SYSTEM_MESSAGE, 'sessionTitle and suppressOriginalPrompt are ignored'];
    case 'PreToolUse':
      return [
        "if a later tools/prepare listener changes the input, the hooks run again at tools/pre-execute on the sealed input and that run's updatedInput is not honored",
        ...(dialect === 'claude-code' ? ['defer is treated as ask'] : []),
        SYSTEM_MESSAGE,
      ];
    case 'PostToolUse':
      return [SYSTEM_MESSAGE];
    case 'Stop':
      return [SYSTEM_MESSAGE];
    case 'PermissionRequest':
      return [
        'decision.updatedInput is not honored (identity is sealed by then; rewrite at PreToolUse)',
        'decision.updatedPermissions is not honored (nothing is remembered)',
        'permission_suggestions is always []',
      ];
  }
}

/** What the handler's own fields (`args`, `if`, `onFailure`, plugin) make the bridge do. */
function handlerFieldsHonored(handler: HookHandler): string[] {
  const lines: string[] = [];
  if (handler.args !== undefined)
    lines.push(`exec form: runs ${handler.command} with ${handler.args.length} argument(s), no shell`);
  if (handler.condition !== undefined)
    lines.push(
      `if ${JSON.stringify(handler.condition.rule)} is tested against the call before the hook runs`,
    );
  if (handler.onFailure === 'block' && handler.event !== 'Stop' && handler.event !== 'SessionStart')
    lines.push('onFailure "block": a failed, timed-out or crashed hook counts as exit 2');
  if (handler.background === 'async')
    lines.push(
      'async: runs in the background, holding nothing; its additionalContext reaches the model as agent.inject() does; killed at dispose',
    );
  if (handler.background === 'rewake')
    lines.push(
      'asyncRewake: runs in the background, holding nothing; exit 2 delivers its stderr (else stdout) to the model as agent.inject() does; killed at dispose',
    );
  if (handler.plugin !== undefined)
    lines.push(`from plugin ${handler.plugin}: CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA are set`);
  return lines;
}

function describeHandler(
  runtime: BridgeRuntime,
  handler: HookHandler,
  sessionStartTimeoutMs: number,
): HandlerCapability {
  const { dialect } = runtime.rules;
  const degraded = [...handler.unhonored];
  const notes = [...handler.notes];
  if (handler.ignoredMatcher !== undefined)
    notes.push(
      `matcher ${JSON.stringify(handler.ignoredMatcher)} is ignored: ${handler.event} always fires (as the client)`,
    );
  // A background hook holds nothing, so only a waited-for SessionStart can outlive the wait.
  if (
    handler.event === 'SessionStart' &&
    handler.background === undefined &&
    handler.timeoutMs > sessionStartTimeoutMs
  )
    degraded.push(
      `timeout ${handler.timeoutMs} ms exceeds the agent's session-start wait of ${sessionStartTimeoutMs} ms: the first turn may start without its context (unless the hook answers {"async":true})`,
    );
  const first = runtime.rules.dedupeCommands
    ? runtime.table.handlers.find((h) => h.event === handler.event && h.dedupeKey === handler.dedupeKey)
    : undefined;
  if (first !== undefined && first !== handler)
    notes.push(`same command as ${first.id}: runs once per event, recorded under ${first.id}`);
  return {
    handlerId: handler.id,
    event: handler.event,
    seam: SEAM[handler.event],
    command: handler.args === undefined ? handler.command : [handler.command, ...handler.args].join(' '),
    file: handler.file,
    ...(handler.matcher === undefined ? {} : { matcher: handler.matcher }),
    timeoutMs: handler.timeoutMs,
    honored: [
      ...honoredFor(dialect, handler.event, runtime.stopContinuationCap),
      ...handlerFieldsHonored(handler),
    ],
    degraded,
    notes,
  };
}

/**
 * The capability report of a loaded bridge.
 * @param runtime the bridge's settings and config
 * @param sessionStartTimeoutMs the agent's session-start wait, to flag SessionStart hooks that outlive it
 */
export function describeCapabilities(
  runtime: BridgeRuntime,
  sessionStartTimeoutMs: number,
): CapabilityReport {
  const { table } = runtime;
  const handlers = table.handlers.map((handler) => describeHandler(runtime, handler, sessionStartTimeoutMs));
  const unsupported = [
    ...table.unsupportedEvents.map(({ event, file }) => ({
      event,
      file,
      reason: `event "${event}" is not supported by the ${table.dialect} bridge`,
    })),
    ...table.skipped.map(({ id, event, file, reason }) => ({ event, file, reason: `${id}: ${reason}` })),
  ];
  const caveats: Partial<Record<HookEventName, readonly string[]>> = {};
  for (const handler of table.handlers) caveats[handler.event] ??= caveatsFor(table.dialect, handler.event);
  const permissions = describePermissions(runtime);
  return {
    dialect: table.dialect,
    handlers,
    unsupported,
    runtime: [...runtime.runtimeNotes],
    caveats,
    ...(permissions === undefined ? {} : { permissions }),
    differences:
      handlers.reduce((sum, handler) => sum + handler.degraded.length, 0) +
      unsupported.length +
      (permissions?.differences.length ?? 0),
  };
}

function describePermissions(runtime: BridgeRuntime): PermissionsCapability | undefined {
  const set = runtime.permissions?.set;
  if (set === undefined) return undefined;
  // `auto` needs Anthropic's classifier: the one mode seamchart cannot start in.
  const differences = set.notes.filter((note) => note.includes('"auto"'));
  return {
    rules: set.rules.length,
    defaultMode: set.defaultMode,
    ...(set.defaultModeFile === undefined ? {} : { defaultModeFile: set.defaultModeFile }),
    notes: set.notes.filter((note) => !differences.includes(note)),
    differences,
  };
}

/** The headline: handlers, and how many behaviours differ from the original client. */
export function capabilityHeadline(report: CapabilityReport): string {
  const permissions =
    report.permissions === undefined
      ? ''
      : `, ${report.permissions.rules} permission rule(s), mode ${report.permissions.defaultMode}`;
  const differ =
    report.differences === 0
      ? 'every behaviour as in the original client'
      : `${report.differences} behaviour(s) differ from the original client`;
  return `${report.dialect} hooks: ${report.handlers.length} handler(s)${permissions}, ${differ}`;
}

/** The start-up summary: the headline, then each difference (what will not run, what runs otherwise). */
export function formatCapabilitySummary(report: CapabilityReport): string {
  const lines = [capabilityHeadline(report)];
  for (const handler of report.handlers)
    for (const item of handler.degraded) lines.push(`  differs: ${handler.handlerId}: ${item}`);
  for (const item of report.unsupported) lines.push(`  unsupported: ${item.reason} (${item.file})`);
  for (const item of report.permissions?.differences ?? []) lines.push(`  differs: ${item}`);
  for (const item of report.runtime) lines.push(`  note: ${item}`);
  return lines.join('\n');
}

/** The full report as text, one line per fact (`seamchart hooks check`). */
export function formatCapabilities(report: CapabilityReport): string {
  const lines = [capabilityHeadline(report)];
  for (const handler of report.handlers) {
    const matcher = handler.matcher === undefined ? '' : ` [${handler.matcher}]`;
    lines.push(`  ${handler.handlerId}${matcher} → ${handler.seam}: ${handler.command}`);
    for (const item of handler.honored) lines.push(`    honored: ${item}`);
    for (const item of handler.degraded) lines.push(`    differs: ${item}`);
    for (const item of handler.notes) lines.push(`    note: ${item}`);
  }
  for (const item of report.unsupported) lines.push(`  unsupported: ${item.reason} (${item.file})`);
  for (const [event, items] of Object.entries(report.caveats))
    for (const item of items ?? []) lines.push(`  ${event} caveat (only if a hook uses it): ${item}`);
  if (report.permissions !== undefined) {
    const { rules, defaultMode, defaultModeFile } = report.permissions;
    lines.push(
      `  permissions: ${rules} rule(s); deny, then ask, then allow; mode ${defaultMode}${defaultModeFile === undefined ? '' : ` (from ${defaultModeFile})`}`,
    );
    for (const item of report.permissions.differences) lines.push(`    differs: ${item}`);
    for (const item of report.permissions.notes) lines.push(`    note: ${item}`);
  }
  for (const item of report.runtime) lines.push(`  note: ${item}`);
  return lines.join('\n');
}
