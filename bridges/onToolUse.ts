import { isDeepStrictEqual } from 'node:util';
import type { ContentBlock, HookContext, JsonObject, JsonValue, PreToolDecision } from '../kernel/index.js';
import type { AgentHandle, Listener, ToolExecution } from '../seams/index.js';
import { defaultBlockReason } from './codec.js';
import { byOf, hookContexts, prependContexts, text } from './contexts.js';
import { type FiredEvent, fireHookEvent, type HookFiring } from './fire.js';
import type { JudgedCall } from './judgedCalls.js';
import { type ListenerKit, payloadScope } from './listenerKit.js';
import { agentCwd, buildPayload, toolResponse } from './payload.js';
import { decidePermission, type PermissionDecision } from './permissions.js';
import { HookEvent, type HookEventName } from './types.js';
import { appliedRewrite, foldUpdatedInputs, notHonored } from './updatedInput.js';

/** The call a tool hook fires for: a sealed execution, or a call still in `tools/prepare`. */
export interface ToolTarget {
  readonly callId: string;
  readonly name: string;
  /** What the hooks see as `tool_input` (and `if` conditions test). */
  readonly input: JsonValue;
  readonly agent?: AgentHandle | undefined;
  readonly turn?: number | undefined;
  readonly signal: AbortSignal;
}

/** The call a tool hook fires for, read from a sealed execution. */
export function targetOf(exec: ToolExecution): ToolTarget {
  return { ...exec, input: exec.arguments };
}

/** Fires a tool hook event with the Claude/Codex tool payload (`tool_name`, `tool_input`, `tool_use_id`, plus `extra`). */
export function fireToolEvent(
  kit: ListenerKit,
  target: ToolTarget,
  event: HookEventName,
  extra: Record<string, JsonValue>,
  annotate?: HookFiring['annotate'],
): Promise<FiredEvent | undefined> {
  const { agent, turn } = target;
  const scope = payloadScope(kit, agent, turn);
  return fireHookEvent(kit.runtime, {
    event,
    subject: target.name,
    tool: { name: target.name, input: target.input },
    payload: buildPayload(kit.runtime.rules, event, scope, {
      tool_name: target.name,
      tool_input: target.input,
      tool_use_id: target.callId,
      ...extra,
    }),
    cwd: scope.cwd,
    signal: target.signal,
    callId: target.callId,
    ...(agent !== undefined && turn !== undefined ? { record: { agent, turn } } : {}),
    ...(annotate === undefined ? {} : { annotate }),
    logger: kit.seams.logger,
    background: { hooks: kit.background, agent },
  });
}

/** Remembers a `continue: false` so the bridge's `agent/turn-stop` listener ends the turn after this step. */
export function rememberStop(
  kit: ListenerKit,
  target: Pick<ToolTarget, 'agent' | 'turn'>,
  stop: { reason?: string } | undefined,
): void {
  if (stop === undefined || target.agent === undefined || target.turn === undefined) return;
  const state = kit.states.get(target.agent, target.turn);
  state.pendingStop ??= stop;
}

function withContexts(contexts: HookContext[]): { additionalContexts?: HookContext[] } {
  return contexts.length === 0 ? {} : { additionalContexts: contexts };
}

/**
 * `PreToolUse`, part one, on `tools/prepare` (the fold): runs the matching hooks once, in parallel,
 * on the input so far; their `updatedInput`s apply in config order (the later entry's replaces the
 * whole input; the fold checks it against the tool, blaming this listener and naming the hook in
 * the reason). The verdict is kept for the same call's `tools/pre-execute`.
 * @param kit the applied bridge's shared state
 */
export function createPrepareListener(kit: ListenerKit): Listener<'tools/prepare'> {
  const event = HookEvent.preToolUse;
  const { dialect } = kit.runtime.rules;
  return async (ctx) => {
    const target: ToolTarget = { ...ctx, input: ctx.arguments };
    const fired = await fireToolEvent(kit, target, event, {}, (results, merged) =>
      foldUpdatedInputs(results, merged, dialect),
    );
    if (fired === undefined) {
      kit.judged.remember(ctx, ctx.arguments, undefined);
      return { kind: 'keep' };
    }
    rememberStop(kit, ctx, fired.merged.stop);
    const rewrite = appliedRewrite(fired);
    // A hook that hands back the input unchanged rewrites nothing (no `original`/`rewrites` record).
    if (rewrite === undefined || isDeepStrictEqual(rewrite.arguments, ctx.arguments)) {
      kit.judged.remember(ctx, ctx.arguments, fired);
      return { kind: 'keep' };
    }
    kit.judged.remember(ctx, rewrite.arguments, fired);
    const over = rewrite.supersedes.length === 0 ? '' : ` (superseding ${rewrite.supersedes.join(', ')})`;
    return {
      kind: 'rewrite',
      arguments: rewrite.arguments as JsonObject,
      reason: `updatedInput of PreToolUse hook ${rewrite.handlerId}${over}`,
    };
  };
}

const RERUN_NOTE =
  'ran again at tools/pre-execute: a later tools/prepare listener changed the input the hooks judged';

/**
 * The verdict for a sealed call: the one its `tools/prepare` reached when the input is still the
 * one the hooks judged, else the hooks run again on the sealed input (their `updatedInput` is then
 * not honored), so no verdict is ever about an input other than the one that runs.
 */
async function verdictFor(
  kit: ListenerKit,
  exec: ToolExecution,
  judged: JudgedCall | undefined,
): Promise<FiredEvent | undefined> {
  if (judged !== undefined && isDeepStrictEqual(judged.input, exec.arguments)) return judged.fired;
  const why =
    judged === undefined
      ? 'updatedInput not honored: the call did not go through tools/prepare (unknown tool or input that is not an object)'
      : 'updatedInput not honored: the input is sealed by now';
  const extra = judged === undefined ? [] : [RERUN_NOTE];
  const fired = await fireToolEvent(kit, targetOf(exec), HookEvent.preToolUse, {}, (results) =>
    notHonored(results, why, extra),
  );
  rememberStop(kit, exec, fired?.merged.stop);
  return fired;
}

/** Who the log names for a permission decision: the rule as written and its behavior, else the mode. */
function permissionBy(permission: PermissionDecision): { by: string } {
  return {
    by:
      permission.rule === undefined
        ? `permissions: ${permission.mode} mode`
        : `permissions: ${permission.rule.text} ${permission.rule.behavior}`,
  };
}

/** The settings' permission rules and mode on one sealed call (`undefined` without a `permissions` block). */
function permissionFor(kit: ListenerKit, exec: ToolExecution): PermissionDecision | undefined {
  const permissions = kit.runtime.permissions;
  if (permissions === undefined) return undefined;
  return decidePermission(
    permissions.set,
    { tool: exec.name, input: exec.arguments, cwd: agentCwd(exec.agent) },
    permissions.modeFor(exec.agent?.id),
  );
}

/**
 * `PreToolUse`, part two, on `tools/pre-execute`: the hooks' verdict (from `tools/prepare`, or a
 * re-run) weighed with the settings' permission rules as Claude Code does — a blocking hook or a
 * deny rule denies; a hook's or a rule's ask goes to approval (a hook's allow does not skip an ask
 * rule); a hook's allow or an allow rule skips the mode's prompt; else the mode decides. Hook
 * contexts ride on the decision (recorded after the result).
 * @param kit the applied bridge's shared state
 */
export function createPreToolListener(kit: ListenerKit): Listener<'tools/pre-execute'> {
  const event = HookEvent.preToolUse;
  const hasHooks = kit.runtime.table.handlers.some((handler) => handler.event === event);
  return async (exec, next): Promise<PreToolDecision> => {
    const fired = hasHooks ? await verdictFor(kit, exec, kit.judged.take(exec)) : undefined;
    const permission = permissionFor(kit, exec);
    const merged = fired?.merged;
    const contexts = merged === undefined ? [] : hookContexts(kit.runtime.rules.dialect, event, merged);
    if (merged?.stop) {
      const reason = merged.stop.reason ?? merged.reason ?? `stopped by ${event} hook`;
      return { kind: 'deny', reason, ...withContexts(contexts), ...byOf(merged.stop.by) };
    }
    if (merged?.kind === 'block')
      return {
        kind: 'deny',
        reason: merged.reason ?? defaultBlockReason(event),
        ...withContexts(contexts),
        ...byOf(merged.by),
      };
    if (permission?.behavior === 'deny' && (permission.rule !== undefined || merged?.kind !== 'allow'))
      return {
        kind: 'deny',
        reason: permission.reason,
        ...withContexts(contexts),
        ...permissionBy(permission),
      };
    const ruleAsks = permission?.behavior === 'ask' && permission.rule !== undefined;
    if (merged?.kind === 'ask' || ruleAsks) {
      const reasons = [
        merged?.kind === 'ask' ? merged.reason : undefined,
        ruleAsks ? permission?.reason : undefined,
      ];
      const reason = reasons.filter((r) => r !== undefined).join('\n\n');
      const by = merged?.kind === 'ask' ? byOf(merged.by) : permission ? permissionBy(permission) : {};
      return { kind: 'ask', ...(reason === '' ? {} : { reason }), ...withContexts(contexts), ...by };
    }
    const downstream = prependContexts(await next(), contexts);
    // The mode's own prompt: skipped by a hook's allow, never overriding a downstream deny or ask.
    if (permission?.behavior === 'ask' && merged?.kind !== 'allow' && downstream.kind === 'allow')
      return { ...downstream, kind: 'ask', reason: permission.reason, ...permissionBy(permission) };
    return downstream;
  };
}

function replacementContent(value: JsonValue): ContentBlock[] {
  return [text(typeof value === 'string' ? value : JSON.stringify(value))];
}

/**
 * `PostToolUse` on `tools/post-execute` (successful calls only): a block keeps the output and adds
 * the reason (Claude) or replaces the output (Codex); `updatedToolOutput` replaces the presentation.
 * @param kit the applied bridge's shared state
 */
export function createPostToolListener(kit: ListenerKit): Listener<'tools/post-execute'> {
  const event = HookEvent.postToolUse;
  const { rules } = kit.runtime;
  return async ({ exec, result }, next) => {
    // Claude runs PostToolUse only after a tool succeeded; a denied or failed call never reaches it.
    if (result.isError) return next();
    const fired = await fireToolEvent(kit, targetOf(exec), event, { tool_response: toolResponse(result) });
    if (fired === undefined) return next();
    const { merged } = fired;
    rememberStop(kit, exec, merged.stop);
    const contexts = hookContexts(rules.dialect, event, merged);
    if (merged.kind === 'block') {
      const reason = text(merged.reason ?? defaultBlockReason(event));
      const feedback = rules.postToolBlock === 'keep-output' ? [...result.content, reason] : [reason];
      return { kind: 'block', feedback, ...withContexts(contexts), ...byOf(merged.by) };
    }
    if (merged.updatedToolOutput !== undefined) {
      return {
        kind: 'accept',
        content: replacementContent(merged.updatedToolOutput),
        ...withContexts(contexts),
        ...byOf(merged.updatedToolOutputBy),
      };
    }
    return prependContexts(await next(), contexts);
  };
}
