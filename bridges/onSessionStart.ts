import { type Listener, Seam } from '../seams/index.js';
import { hookSource } from './contexts.js';
import { fireHookEvent } from './fire.js';
import { type ListenerKit, payloadScope } from './listenerKit.js';
import { buildPayload } from './payload.js';
import { HookEvent } from './types.js';

const event = HookEvent.sessionStart;

/**
 * `SessionStart` on the awaited `agent/session-start`: contexts are injected before the first turn.
 * No turn is open, so nothing is logged as `hook/*`; a failed or timed-out hook becomes `agent/error`.
 * @param kit the applied bridge's shared state
 */
export function createSessionStartListener(kit: ListenerKit): Listener<'agent/session-start'> {
  const { runtime } = kit;
  return async (ctx) => {
    const scope = payloadScope(kit, ctx.agent);
    const fired = await fireHookEvent(runtime, {
      event,
      subject: ctx.source,
      payload: buildPayload(runtime.rules, event, scope, { source: ctx.source }),
      cwd: scope.cwd,
      signal: ctx.signal,
      logger: kit.seams.logger,
    });
    if (fired === undefined || ctx.signal.aborted) return;
    for (const { handler, verdict } of fired.results) {
      if (verdict.failure === undefined) continue;
      kit.seams.notify(
        Seam.error,
        {
          agentId: ctx.agent.id,
          error: {
            message: `${handler.id} (${handler.command}): ${verdict.notes.join('; ') || verdict.failure}`,
            code: verdict.failure === 'timeout' ? 'HOOK_TIMEOUT' : 'HOOK_FAILED',
          },
          origin: runtime.rules.pluginName,
        },
        { agentId: ctx.agent.id },
      );
    }
    const source = hookSource(runtime.rules.dialect, event);
    for (const context of fired.merged.contexts) ctx.agent.inject(context, { source });
  };
}
