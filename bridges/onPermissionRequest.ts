import type { Listener } from '../seams/index.js';
import { defaultBlockReason } from './codec.js';
import { fireHookEvent } from './fire.js';
import { type ListenerKit, payloadScope } from './listenerKit.js';
import { buildPayload } from './payload.js';
import { HookEvent } from './types.js';

const event = HookEvent.permissionRequest;

/**
 * `PermissionRequest` on `tools/approval`: runs when an `ask` reaches approval, before the approval
 * channel (also when none is set). `behavior: 'allow'` allows the call once; `'deny'` (or exit 2)
 * rejects it with the message; `interrupt: true` or `continue: false` also stops the turn after this
 * step; no decision falls through to the channel.
 * @param kit the applied bridge's shared state
 */
export function createPermissionRequestListener(kit: ListenerKit): Listener<'tools/approval'> {
  const { runtime } = kit;
  return async ({ exec }, next) => {
    const scope = payloadScope(kit, exec.agent, exec.turn);
    const record =
      exec.agent !== undefined && exec.turn !== undefined
        ? { agent: exec.agent, turn: exec.turn }
        : undefined;
    const fired = await fireHookEvent(runtime, {
      event,
      subject: exec.name,
      tool: { name: exec.name, input: exec.arguments },
      payload: buildPayload(runtime.rules, event, scope, {
        tool_name: exec.name,
        tool_input: exec.arguments,
        tool_use_id: exec.callId,
        permission_suggestions: [],
      }),
      cwd: scope.cwd,
      signal: exec.signal,
      callId: exec.callId,
      ...(record ? { record } : {}),
      logger: kit.seams.logger,
    });
    if (fired === undefined) return next();
    const { merged } = fired;
    const interrupt = merged.interrupt
      ? merged.reason === undefined
        ? {}
        : { reason: merged.reason }
      : undefined;
    const stop = merged.stop ?? interrupt;
    if (stop !== undefined && exec.agent !== undefined && exec.turn !== undefined) {
      const state = kit.states.get(exec.agent, exec.turn);
      state.pendingStop ??= stop;
    }
    if (merged.kind === 'block' || merged.stop !== undefined) {
      const reason = merged.reason ?? merged.stop?.reason ?? defaultBlockReason(event);
      return { outcome: 'rejected', reason };
    }
    if (merged.kind === 'allow') return { outcome: 'allowed-once' };
    return next();
  };
}
