import type { Listener } from '../seams/index.js';
import { defaultBlockReason } from './codec.js';
import { byOf, hookContexts, prependContexts } from './contexts.js';
import { fireHookEvent } from './fire.js';
import { type ListenerKit, payloadScope } from './listenerKit.js';
import { buildPayload, textOf } from './payload.js';
import { HookEvent } from './types.js';

const event = HookEvent.userPromptSubmit;

/**
 * `UserPromptSubmit` on `agent/prompt-submit`: a block (or `continue: false`) rejects the turn;
 * contexts ride on the downstream `allow`, so later listeners' rewrites and contexts survive.
 * @param kit the applied bridge's shared state
 */
export function createPromptSubmitListener(kit: ListenerKit): Listener<'agent/prompt-submit'> {
  const { runtime } = kit;
  return async (ctx, next) => {
    const scope = payloadScope(kit, ctx.agent, ctx.turn);
    const fired = await fireHookEvent(runtime, {
      event,
      payload: buildPayload(runtime.rules, event, scope, { prompt: textOf(ctx.content) }),
      cwd: scope.cwd,
      signal: ctx.signal,
      record: { agent: ctx.agent, turn: ctx.turn },
      logger: kit.seams.logger,
      background: { hooks: kit.background, agent: ctx.agent },
    });
    if (fired === undefined) return next();
    const { merged } = fired;
    // Codex keeps the hooks' context on a block (for the next turn); Claude drops it with the prompt.
    const kept = runtime.rules.blockKeepsContext ? hookContexts(runtime.rules.dialect, event, merged) : [];
    const contexts = kept.length === 0 ? {} : { additionalContexts: kept };
    if (merged.stop)
      return {
        kind: 'block',
        reason: merged.stop.reason ?? `stopped by ${event} hook`,
        ...contexts,
        ...byOf(merged.stop.by),
      };
    if (merged.kind === 'block')
      return {
        kind: 'block',
        reason: merged.reason ?? defaultBlockReason(event),
        ...contexts,
        ...byOf(merged.by),
      };
    const downstream = await next();
    if (downstream.kind !== 'allow') return downstream;
    return prependContexts(downstream, hookContexts(runtime.rules.dialect, event, merged));
  };
}
