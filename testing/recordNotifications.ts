import type { NotifySeamName, SeamCtx, Seams } from '../seams/index.js';
import { notifySeamNames } from '../seams/index.js';

/** One notification as it was dispatched. */
export type RecordedNotification = {
  [TName in NotifySeamName]: { readonly seam: TName; readonly payload: SeamCtx<TName> };
}[NotifySeamName];

/** A live recording: `events` grows in dispatch order until `dispose()`. */
export interface NotificationRecording {
  /** Every notify-mode notification since the recording started, in order (`checkLedger` reads this). */
  readonly events: readonly RecordedNotification[];
  /** The recorded payloads of one seam, in order. */
  of<TName extends NotifySeamName>(seam: TName): SeamCtx<TName>[];
  /** Removes the recording listeners; `events` keeps what was recorded. */
  dispose(): void;
  [Symbol.dispose](): void;
}

/**
 * Records every notify-mode seam (`tools/result`, `agent/inbox/*`, `seam/decided`, `session/event`, …)
 * as `{ seam, payload }` in dispatch order, by registering one listener per seam.
 * @param seams the registry the agent or machine dispatches through
 * @example
 * using notifications = recordNotifications(seams);
 * // … run the agent …
 * expect(checkLedger(notifications.events)).toEqual([]);
 */
export function recordNotifications(seams: Seams): NotificationRecording {
  const events: RecordedNotification[] = [];
  const disposers = notifySeamNames.map((seam) =>
    seams.on(
      seam,
      (payload: SeamCtx<typeof seam>) => {
        events.push({ seam, payload } as RecordedNotification);
      },
      { name: 'recordNotifications' },
    ),
  );
  const dispose = (): void => {
    for (const disposer of disposers) disposer();
  };
  return {
    events,
    of: <TName extends NotifySeamName>(seam: TName) =>
      events.filter((event) => event.seam === seam).map((event) => event.payload as SeamCtx<TName>),
    dispose,
    [Symbol.dispose]: dispose,
  };
}
