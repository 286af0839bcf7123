import type { Listener } from '../seams/index.js';
import { defaultBlockReason } from './codec.js';
import { byOf } from './contexts.js';
import type { ListenerKit } from './listenerKit.js';
import { fireToolEvent, rememberStop, targetOf } from './onToolUse.js';
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
  return async ({ exec }, next) => {
    const target = targetOf(exec);
    const fired = await fireToolEvent(kit, target, event, { permission_suggestions: [] });
    if (fired === undefined) return next();
    const { merged } = fired;
    const interrupt = merged.interrupt
      ? merged.reason === undefined
        ? {}
        : { reason: merged.reason }
      : undefined;
    rememberStop(kit, target, merged.stop ?? interrupt);
    if (merged.kind === 'block' || merged.stop !== undefined) {
      const reason = merged.reason ?? merged.stop?.reason ?? defaultBlockReason(event);
      return { outcome: 'rejected', reason, ...byOf(merged.stop?.by ?? merged.by) };
    }
    if (merged.kind === 'allow') return { outcome: 'allowed-once', ...byOf(merged.by) };
    return next();
  };
}
