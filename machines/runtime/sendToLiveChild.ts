import type { AnyActorRef, EventObject } from 'xstate';

/**
 * Sends `event` to the child `id` only while that child runs. A child that reached its final state
 * (its done event still waiting in our mailbox) or was never started gets nothing, so XState never
 * warns about an event sent to a stopped actor.
 * @returns whether the event was delivered
 */
export function sendToLiveChild<TEvent extends EventObject>(
  self: AnyActorRef,
  id: string,
  event: TEvent,
): boolean {
  const children = (self.getSnapshot() as { children?: Record<string, AnyActorRef | undefined> }).children;
  const child = children?.[id];
  if (child?.getSnapshot().status !== 'active') return false;
  sendToLive(child, event);
  return true;
}

/**
 * Sends `event` to `self` only while it runs: a phase finishing after its actor stopped is dropped
 * (XState would warn about an event sent to a stopped actor).
 */
export function sendToLive<TEvent extends EventObject>(
  self: { getSnapshot(): { readonly status: string }; send(event: TEvent): void },
  event: TEvent,
): void {
  if (self.getSnapshot().status === 'active') self.send(event);
}
