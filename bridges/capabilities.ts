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
  readonly degraded: readonly string[];
}

/** `bridge.capabilities()`: honored, degraded and unsupported parts of the config. */
export interface CapabilityReport {
  readonly dialect: Dialect;
  readonly handlers: readonly HandlerCapability[];
  /** Entries that never run: unsupported events, handler types, async hooks. */
  readonly unsupported: readonly { readonly event: string; readonly file: string; readonly reason: string }[];
  /** Things that happened at run time (a Stop cap that was hit…). */
  readonly runtime: readonly string[];
}

const SEAM: Record<HookEventName, string> = {
  SessionStart: 'agent/session-start',
  UserPromptSubmit: 'agent/prompt-submit',
  PreToolUse: 'tools/prepare + tools/pre-execute',
  PostToolUse: 'tools/post-execute',
  Stop: 'agent/turn-continuation',
  PermissionRequest: 'tools/approval',
};

const SYSTEM_MESSAGE = 'systemMessage is recorded and reported, never shown to the model';

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

function degradedFor(dialect: Dialect, event: HookEventName): string[] {
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
        ...(dialect === 'codex'
          ? ['updatedInput without permissionDecision "allow", or when a hook blocks, is ignored (as Codex)']
          : []),
        dialect === 'claude-code' ? 'defer is treated as ask' : 'ask and defer are ignored (Codex)',
        'allow does not bypass later policy: the rest of the chain still decides',
        SYSTEM_MESSAGE,
      ];
    case 'PostToolUse':
      return [
        'runs after successful calls only (denied or failed calls do not fire it)',
        ...(dialect === 'codex' ? ['updatedToolOutput is not supported (Codex)'] : []),
        SYSTEM_MESSAGE,
      ];
    case 'Stop':
      return ['hookSpecificOutput.additionalContext on Stop is ignored', SYSTEM_MESSAGE];
    case 'PermissionRequest':
      return [
        'decision.updatedInput is not honored (identity is sealed by then; rewrite at PreToolUse)',
        'decision.updatedPermissions is not honored (nothing is remembered)',
        'permission_suggestions is always []',
        SYSTEM_MESSAGE,
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
  const degraded = [...degradedFor(dialect, handler.event), ...handler.unhonored];
  if (handler.ignoredMatcher !== undefined)
    degraded.push(
      `matcher ${JSON.stringify(handler.ignoredMatcher)} is ignored: ${handler.event} always fires`,
    );
  if (handler.event === 'SessionStart' && handler.timeoutMs > sessionStartTimeoutMs)
    degraded.push(
      `timeout ${handler.timeoutMs} ms exceeds the agent's session-start wait of ${sessionStartTimeoutMs} ms: the first turn may start without its context`,
    );
  const first = runtime.rules.dedupeCommands
    ? runtime.table.handlers.find((h) => h.event === handler.event && h.dedupeKey === handler.dedupeKey)
    : undefined;
  if (first !== undefined && first !== handler)
    degraded.push(`same command as ${first.id}: runs once per event, recorded under ${first.id}`);
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
  return {
    dialect: table.dialect,
    handlers: table.handlers.map((handler) => describeHandler(runtime, handler, sessionStartTimeoutMs)),
    unsupported: [
      ...table.unsupportedEvents.map(({ event, file }) => ({
        event,
        file,
        reason: `event "${event}" is not supported by the ${table.dialect} bridge`,
      })),
      ...table.skipped.map(({ id, event, file, reason }) => ({ event, file, reason: `${id}: ${reason}` })),
    ],
    runtime: [...runtime.runtimeNotes],
  };
}

/** The report as text, one line per fact (what the CLI prints at start-up). */
export function formatCapabilities(report: CapabilityReport): string {
  const lines = [`${report.dialect} hooks: ${report.handlers.length} handler(s)`];
  for (const handler of report.handlers) {
    const matcher = handler.matcher === undefined ? '' : ` [${handler.matcher}]`;
    lines.push(`  ${handler.handlerId}${matcher} → ${handler.seam}: ${handler.command}`);
    for (const item of handler.degraded) lines.push(`    degraded: ${item}`);
  }
  for (const item of report.unsupported) lines.push(`  unsupported: ${item.reason} (${item.file})`);
  for (const item of report.runtime) lines.push(`  note: ${item}`);
  return lines.join('\n');
}
