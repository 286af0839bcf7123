import { z } from 'zod';
import type { Violation } from '../types.js';
import { Invariant, violation } from './names.js';

/**
 * One recorded notification: `{ seam, payload }` as a `recordNotifications(seams)` helper records it
 * (`{ type, payload }` is accepted too). Entries of other seams are ignored.
 */
export type LedgerNotification =
  | { readonly seam: string; readonly payload: unknown }
  | { readonly type: string; readonly payload: unknown };

export interface LedgerOptions {
  /**
   * Accept ids still outstanding at the end (a queued message waiting for a wake-up, a check taken while
   * the agent runs). Off by default: after `dispose()` every id must have ended.
   */
  allowOutstanding?: boolean;
}

const Ref = z.object({ agentId: z.string().optional(), id: z.string() });
const Discard = z.object({ agentId: z.string().optional(), items: z.array(z.object({ id: z.string() })) });

/**
 * 10 — every `agent/inbox/enqueue` id ends in exactly one `agent/inbox/dequeue` or one membership in an
 * `agent/inbox/discard`; the outstanding count never goes negative. Pairs by (agentId, id).
 * A violation's `seq` is the notification's index in `notifications`.
 * @param notifications recorded notifications, in emission order
 * @param options whether ids may still be outstanding at the end
 */
export function checkLedger(
  notifications: readonly LedgerNotification[],
  options: LedgerOptions = {},
): Violation[] {
  const violations: Violation[] = [];
  const report = (code: string, index: number | undefined, message: string) =>
    violations.push(violation(Invariant.inboxLedger, code, index, message));
  const outstanding = new Map<string, { id: string; index: number }>();
  const ended = new Map<string, string>();
  const key = (agentId: string | undefined, id: string) => `${agentId ?? ''}\u0000${id}`;
  const end = (agentId: string | undefined, id: string, index: number, how: string) => {
    const k = key(agentId, id);
    if (outstanding.delete(k)) {
      ended.set(k, `${how} at #${index}`);
      return;
    }
    const previous = ended.get(k);
    if (previous !== undefined)
      report('ENDED_TWICE', index, `${how} of ${id}, which already ended (${previous})`);
    else
      report(
        'NOT_OUTSTANDING',
        index,
        `${how} of ${id}, which was never enqueued (the outstanding count goes negative)`,
      );
  };
  for (const [index, notification] of notifications.entries()) {
    const name = 'seam' in notification ? notification.seam : notification.type;
    if (name === 'agent/inbox/discard') {
      const parsed = Discard.safeParse(notification.payload);
      if (!parsed.success) {
        report('MALFORMED_NOTIFICATION', index, `${name} payload has no items [{ id }]`);
        continue;
      }
      if (parsed.data.items.length === 0) {
        report('EMPTY_DISCARD', index, 'discard with no items (a discard is never empty)');
      }
      for (const item of parsed.data.items) end(parsed.data.agentId, item.id, index, 'discard');
      continue;
    }
    if (name !== 'agent/inbox/enqueue' && name !== 'agent/inbox/dequeue') continue;
    const parsed = Ref.safeParse(notification.payload);
    if (!parsed.success) {
      report('MALFORMED_NOTIFICATION', index, `${name} payload has no string id`);
      continue;
    }
    const { agentId, id } = parsed.data;
    if (name === 'agent/inbox/dequeue') {
      end(agentId, id, index, 'dequeue');
      continue;
    }
    const k = key(agentId, id);
    if (outstanding.has(k) || ended.has(k))
      report('ENQUEUED_TWICE', index, `enqueue of ${id}, which was enqueued before`);
    else outstanding.set(k, { id, index });
  }
  if (options.allowOutstanding !== true) {
    for (const { id, index } of outstanding.values()) {
      report('NEVER_ENDED', index, `${id} was enqueued but never dequeued or discarded`);
    }
  }
  return violations;
}
