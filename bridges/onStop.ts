import type { Listener } from '../seams/index.js';
import { defaultBlockReason } from './codec.js';
import { byOf, hookSource, text } from './contexts.js';
import { fireHookEvent } from './fire.js';
import { type ListenerKit, payloadScope } from './listenerKit.js';
import { buildPayload, lastAssistantText } from './payload.js';
import { HookEvent } from './types.js';

const event = HookEvent.stop;

/**
 * `Stop` on `agent/turn-continuation`: runs only when the rest of the chain decided `stop` (the
 * model finished answering); a block continues the turn with the reason as next-step steering, at
 * most `stopContinuationCap` times per turn; `continue: false` stops the turn at `agent/turn-stop`.
 * @param kit the applied bridge's shared state
 */
export function createStopListener(kit: ListenerKit): Listener<'agent/turn-continuation'> {
  const { runtime } = kit;
  const cap = runtime.stopContinuationCap;
  return async (ctx, next) => {
    const downstream = await next();
    if (downstream.action !== 'stop') return downstream;
    const state = kit.states.get(ctx.agent, ctx.turn);
    const capReached = state.stopContinuations >= cap;
    const scope = payloadScope(kit, ctx.agent, ctx.turn);
    const last = lastAssistantText(ctx.agent, ctx.turn);
    const fired = await fireHookEvent(runtime, {
      event,
      payload: buildPayload(runtime.rules, event, scope, {
        // A Stop hook of this turn already continued it (Claude's "already continuing" flag).
        stop_hook_active: state.stopContinuations > 0,
        last_assistant_message: last ?? (runtime.rules.missingTranscript === null ? null : ''),
      }),
      cwd: scope.cwd,
      signal: ctx.signal,
      record: { agent: ctx.agent, turn: ctx.turn },
      logger: kit.seams.logger,
      background: { hooks: kit.background, agent: ctx.agent },
      ...(capReached ? { blockNote: `Stop continuation cap (${cap}) reached: the turn completes` } : {}),
    });
    if (fired === undefined) return downstream;
    const { merged } = fired;
    if (merged.stop) {
      state.pendingStop ??= merged.stop;
      return downstream;
    }
    if (merged.kind !== 'block') return downstream;
    if (capReached) {
      runtime.runtimeNotes.push(
        `agent ${ctx.agent.id} turn ${ctx.turn}: Stop hooks asked to continue past the cap of ${cap}; the turn completed`,
      );
      return downstream;
    }
    state.stopContinuations++;
    const reason = merged.reason ?? defaultBlockReason(event);
    return {
      action: 'continue',
      reason: { content: [text(reason)], source: hookSource(runtime.rules.dialect, event) },
      ...byOf(merged.by),
    };
  };
}

/**
 * Ends the turn at `agent/turn-stop` after a hook said `continue: false` (PreToolUse, PostToolUse
 * or Stop); `stoppedBy` is this listener's name and `stopReason` the hook's.
 * @param kit the applied bridge's shared state
 */
export function createTurnStopListener(kit: ListenerKit): Listener<'agent/turn-stop'> {
  return (ctx) => {
    const state = kit.states.get(ctx.agent, ctx.turn);
    const pending = state.pendingStop;
    if (pending === undefined) return undefined;
    state.pendingStop = undefined;
    return {
      action: 'stop',
      ...(pending.reason === undefined ? {} : { reason: pending.reason }),
      ...byOf(pending.by),
    };
  };
}
