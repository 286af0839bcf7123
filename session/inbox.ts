import { type CoreEventData, isInboxEventType, type LogEvent } from '../kernel/index.js';

/** An accepted inbox item the log shows as neither discarded nor recorded: resume re-queues it. */
export interface PendingInboxItem {
  readonly accepted: CoreEventData<'inbox/accepted'>;
  /** Why it is pending, for `store.repairs`. */
  readonly why: 'never claimed' | 'claimed by a turn that recorded no prompt' | 'steering never drained';
}

/**
 * The accepted items a resume re-queues, in acceptance order: not discarded, not drained, and not claimed by a
 * turn that recorded its `user/message` or `prompt/blocked` or ended other than `disposed` or `interrupted`.
 * @param events the loaded (and repaired) log
 */
export function pendingInboxItems(events: readonly LogEvent[]): PendingInboxItem[] {
  const accepted = new Map<string, CoreEventData<'inbox/accepted'>>();
  const ended = new Set<string>();
  const claimed = new Set<string>();
  let openClaim: string | undefined;
  for (const event of events) {
    switch (event.type) {
      case 'inbox/accepted': {
        const data = event.data as CoreEventData<'inbox/accepted'>;
        if (!accepted.has(data.id)) accepted.set(data.id, data);
        break;
      }
      case 'inbox/discarded':
        for (const id of (event.data as CoreEventData<'inbox/discarded'>).ids) ended.add(id);
        break;
      case 'turn/start':
        openClaim = (event.data as CoreEventData<'turn/start'>).trigger.itemId;
        if (openClaim !== undefined) claimed.add(openClaim);
        break;
      case 'user/message':
      case 'prompt/blocked':
        if (openClaim !== undefined) ended.add(openClaim);
        break;
      case 'steering/message': {
        const { itemId } = event.data as CoreEventData<'steering/message'>;
        if (itemId !== undefined) ended.add(itemId);
        break;
      }
      case 'turn/end': {
        // Only a disposed or repaired (crashed) turn re-runs a message whose prompt it never recorded; a
        // cancelled turn (older logs have no inbox/discarded for it) or a failed one ended it for good.
        const { kind } = (event.data as CoreEventData<'turn/end'>).reason;
        if (openClaim !== undefined && kind !== 'disposed' && kind !== 'interrupted') ended.add(openClaim);
        openClaim = undefined;
        break;
      }
      default:
        break;
    }
  }
  return [...accepted.values()]
    .filter((item) => !ended.has(item.id))
    .map((item) => ({
      accepted: item,
      why: claimed.has(item.id)
        ? 'claimed by a turn that recorded no prompt'
        : item.steering
          ? 'steering never drained'
          : 'never claimed',
    }));
}

/** The highest `m<N>` message number in the log's inbox, so a resumed agent continues after it. */
export function lastMessageNumber(events: readonly LogEvent[]): number {
  let last = 0;
  for (const event of events) {
    if (event.type !== 'inbox/accepted') continue;
    const match = /^m(\d+)$/.exec((event.data as CoreEventData<'inbox/accepted'>).id);
    if (match) last = Math.max(last, Number(match[1]));
  }
  return last;
}

/**
 * The log without the durable inbox's `inbox/*` events: the core turn events that scenarios pin exactly.
 * @param events a session log's events
 */
export function coreTurnEvents<TEvent extends { readonly type: string }>(
  events: readonly TEvent[],
): TEvent[] {
  return events.filter((event) => !isInboxEventType(event.type));
}
