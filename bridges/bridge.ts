import { Seam, type SeamPlugin, type Seams } from '../seams/index.js';
import { type CapabilityReport, describeCapabilities } from './capabilities.js';
import type { DialectRules } from './dialect.js';
import type { BridgePermissions, BridgeRuntime } from './fire.js';
import { createListenerKit, type ListenerKit, listenerName } from './listenerKit.js';
import { createPermissionRequestListener } from './onPermissionRequest.js';
import { createPromptSubmitListener } from './onPromptSubmit.js';
import { createSessionStartListener } from './onSessionStart.js';
import { createStopListener, createTurnStopListener } from './onStop.js';
import { createPostToolListener, createPrepareListener, createPreToolListener } from './onToolUse.js';
import type { ResolvedHookBridgeOptions } from './options.js';
import { agentCwd } from './payload.js';
import type { Dialect, HookEventName, HookTable } from './types.js';

/** A loaded hooks config as a seam plugin. */
export interface HookBridge extends SeamPlugin {
  readonly dialect: Dialect;
  /** Per handler: what is honored, what is degraded; plus unsupported entries and run-time notes. */
  capabilities(): CapabilityReport;
}

/** What `createHookBridge` binds together. */
export interface HookBridgeParts {
  readonly rules: DialectRules;
  readonly table: HookTable;
  readonly options: ResolvedHookBridgeOptions;
  /** Codex `model` payload field. */
  readonly model?: string;
  /** Claude settings' `permissions`, applied at `tools/pre-execute` together with PreToolUse hooks. */
  readonly permissions?: BridgePermissions;
}

/** Keeps the Claude transcript following the log, and removes per-agent files at dispose. */
function registerHousekeeping(seams: Seams, kit: ListenerKit): void {
  const { transcripts } = kit;
  if (transcripts !== undefined) {
    const cwds = new Map<string, string>();
    seams.on(
      Seam.sessionStart,
      (ctx) => {
        // Opened (rebuilt from the log when missing) as the session starts, then it follows every event.
        const cwd = agentCwd(ctx.agent);
        cwds.set(ctx.agent.id, cwd);
        transcripts.sync(ctx.agent, cwd);
      },
      { name: listenerName(kit, 'transcript'), prepend: true },
    );
    seams.on(
      Seam.sessionEvent,
      ({ agentId }) => transcripts.follow(agentId, cwds.get(agentId) ?? process.cwd()),
      {
        name: listenerName(kit, 'transcript'),
      },
    );
  }
  seams.on(
    Seam.status,
    ({ agentId, status }) => {
      if (status !== 'disposed') return;
      transcripts?.release(agentId);
      kit.envFiles.release(agentId);
      kit.background.release(agentId);
    },
    { name: listenerName(kit, 'cleanup') },
  );
}

function registerListeners(seams: Seams, runtime: BridgeRuntime): void {
  const kit = createListenerKit(runtime, seams);
  if (runtime.table.handlers.length > 0) registerHousekeeping(seams, kit);
  const has = (event: HookEventName): boolean => runtime.table.handlers.some((h) => h.event === event);
  const name = (suffix?: string) => ({ name: listenerName(kit, suffix) });
  // Only seams with handlers get a listener: an empty seam costs nothing.
  if (has('SessionStart')) seams.on(Seam.sessionStart, createSessionStartListener(kit), name('SessionStart'));
  if (has('UserPromptSubmit'))
    seams.on(Seam.promptSubmit, createPromptSubmitListener(kit), name('UserPromptSubmit'));
  // PreToolUse runs once, at tools/prepare (rewrites fold in config order); its verdict decides at pre-execute.
  if (has('PreToolUse')) seams.on(Seam.prepare, createPrepareListener(kit), name('PreToolUse'));
  // Permission rules decide with the PreToolUse hooks' verdict, as Claude Code weighs them.
  if (has('PreToolUse') || runtime.permissions !== undefined)
    seams.on(
      Seam.preExecute,
      createPreToolListener(kit),
      name(has('PreToolUse') ? 'PreToolUse' : 'permissions'),
    );
  if (has('PostToolUse')) seams.on(Seam.postExecute, createPostToolListener(kit), name('PostToolUse'));
  if (has('Stop')) seams.on(Seam.turnContinuation, createStopListener(kit), name('Stop'));
  if (has('PermissionRequest'))
    seams.on(Seam.approval, createPermissionRequestListener(kit), name('PermissionRequest'));
  // `continue: false` from these events ends the turn here; the listener's name becomes `stoppedBy`.
  if (has('PreToolUse') || has('PostToolUse') || has('Stop') || has('PermissionRequest'))
    seams.on(Seam.turnStop, createTurnStopListener(kit), name());
}

/**
 * Binds a dialect and a loaded config into a plugin that registers one listener per mapped seam.
 * Unsupported entries are reported once per `apply()` as warnings (and by `capabilities()`).
 * @param parts dialect rules, config table and resolved options
 */
export function createHookBridge(parts: HookBridgeParts): HookBridge {
  const { rules, table, options } = parts;
  const runtime: BridgeRuntime = {
    rules,
    table,
    scrubCredentials: options.scrubCredentials,
    maxOutputBytes: options.maxOutputBytes,
    killGraceMs: options.killGraceMs,
    stderrSummaryChars: options.stderrSummaryChars,
    transcriptPath: options.transcriptPath,
    model: parts.model ?? '',
    stopContinuationCap: options.stopContinuationCap,
    runtimeNotes: [],
    ...(parts.permissions === undefined ? {} : { permissions: parts.permissions }),
  };
  const capabilities = (): CapabilityReport => describeCapabilities(runtime, options.sessionStartTimeoutMs);
  return Object.freeze({
    name: rules.pluginName,
    dialect: rules.dialect,
    capabilities,
    apply(seams: Seams): void {
      for (const item of capabilities().unsupported)
        seams.logger.warn?.(`${rules.pluginName}: skipping ${item.reason} (${item.file})`);
      registerListeners(seams, runtime);
    },
  });
}
