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
  child.send(event);
  return true;
}
