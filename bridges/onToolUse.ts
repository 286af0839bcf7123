import type { ContentBlock, HookContext, JsonValue, Listener, ToolExecution } from '../seams/index.js';
import { defaultBlockReason } from './codec.js';
import { hookContexts, prependContexts, text } from './contexts.js';
import { type FiredEvent, fireHookEvent } from './fire.js';
import { type ListenerKit, payloadScope } from './listenerKit.js';
import { buildPayload, toolResponse } from './payload.js';
import { HookEvent, type HookEventName } from './types.js';

function recordTarget(exec: ToolExecution) {
  return exec.agent !== undefined && exec.turn !== undefined
    ? { agent: exec.agent, turn: exec.turn }
    : undefined;
}

function fireToolEvent(
  kit: ListenerKit,
  exec: ToolExecution,
  event: HookEventName,
  extra: Record<string, JsonValue>,
): Promise<FiredEvent | undefined> {
  const scope = payloadScope(kit, exec.agent, exec.turn);
  const record = recordTarget(exec);
  return fireHookEvent(kit.runtime, {
    event,
    subject: exec.name,
    tool: { name: exec.name, input: exec.arguments },
    payload: buildPayload(kit.runtime.rules, event, scope, {
      tool_name: exec.name,
      tool_input: exec.arguments,
      tool_use_id: exec.callId,
      ...extra,
    }),
    cwd: scope.cwd,
    signal: exec.signal,
    ...(record ? { record } : {}),
    logger: kit.seams.logger,
  });
}

/** Remembers a `continue: false` so the bridge's `agent/turn-stop` listener ends the turn after this step. */
function rememberStop(kit: ListenerKit, exec: ToolExecution, stop: { reason?: string } | undefined): void {
  if (stop === undefined || exec.agent === undefined || exec.turn === undefined) return;
  const state = kit.states.get(exec.agent, exec.turn);
  state.pendingStop ??= stop;
}

function withContexts(contexts: HookContext[]): { additionalContexts?: HookContext[] } {
  return contexts.length === 0 ? {} : { additionalContexts: contexts };
}

/**
 * `PreToolUse` on `tools/pre-execute`: deny wins, then ask (through the approval channel), else
 * the rest of the chain decides; hook contexts ride on the decision (recorded after the result).
 * @param kit the applied bridge's shared state
 */
export function createPreToolListener(kit: ListenerKit): Listener<'tools/pre-execute'> {
  const event = HookEvent.preToolUse;
  return async (exec, next) => {
    const fired = await fireToolEvent(kit, exec, event, {});
    if (fired === undefined) return next();
    const { merged } = fired;
    const contexts = hookContexts(kit.runtime.rules.dialect, event, merged.contexts);
    if (merged.stop) {
      rememberStop(kit, exec, merged.stop);
      const reason = merged.stop.reason ?? merged.reason ?? `stopped by ${event} hook`;
      return { kind: 'deny', reason, ...withContexts(contexts) };
    }
    if (merged.kind === 'block')
      return { kind: 'deny', reason: merged.reason ?? defaultBlockReason(event), ...withContexts(contexts) };
    if (merged.kind === 'ask')
      return {
        kind: 'ask',
        ...(merged.reason === undefined ? {} : { reason: merged.reason }),
        ...withContexts(contexts),
      };
    return prependContexts(await next(), contexts);
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
    const fired = await fireToolEvent(kit, exec, event, { tool_response: toolResponse(result) });
    if (fired === undefined) return next();
    const { merged } = fired;
    rememberStop(kit, exec, merged.stop);
    const contexts = hookContexts(rules.dialect, event, merged.contexts);
    if (merged.kind === 'block') {
      const reason = text(merged.reason ?? defaultBlockReason(event));
      const feedback = rules.postToolBlock === 'keep-output' ? [...result.content, reason] : [reason];
      return { kind: 'block', feedback, ...withContexts(contexts) };
    }
    if (merged.updatedToolOutput !== undefined) {
      return {
        kind: 'accept',
        content: replacementContent(merged.updatedToolOutput),
        ...withContexts(contexts),
      };
    }
    return prependContexts(await next(), contexts);
  };
}
