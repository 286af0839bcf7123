import type { CoreEventData, LogEvent } from '../../kernel/index.js';
import type { CancelCause } from '../../seams/index.js';
import {
  cancelledApprovals,
  findResumePoint,
  findSuspension,
  pendingInboxItems,
  type Suspension,
} from '../../session/index.js';
import type { ScopeTable } from '../runtime/index.js';
import { freezeJson, type InboxItem, type Injection } from '../runtime/index.js';
import type { ScopedTurnInput } from '../turn/index.js';
import { openTurnInput } from './actors.js';
import type { AgentMachineServices } from './types.js';

/** A cancel of the suspended turn, as the agent received it. */
export interface SuspensionCancel {
  readonly cause: CancelCause;
  readonly keepInbox: boolean;
}

/**
 * The steering the suspended turn still owes its next step: accepted steering items, since its `turn/start`,
 * neither drained nor discarded (the log keeps them while the turn is suspended).
 * @param events the session log
 * @param suspension the log's suspension
 */
export function suspendedSteering(events: readonly LogEvent[], suspension: Suspension): InboxItem[] {
  const since = new Set<string>();
  for (let index = suspension.turnStartIndex; index < events.length; index++) {
    const event = events[index]!;
    if (event.type !== 'inbox/accepted') continue;
    const data = event.data as CoreEventData<'inbox/accepted'>;
    if (data.steering) since.add(data.id);
  }
  return pendingInboxItems(events)
    .filter(({ accepted }) => since.has(accepted.id))
    .map(({ accepted }) =>
      freezeJson({
        id: accepted.id,
        content: accepted.content,
        source: accepted.source,
        contexts: accepted.contexts ?? [],
        ...(accepted.meta === undefined ? {} : { meta: accepted.meta }),
        wakeup: true,
      }),
    );
}

/**
 * Opens the run scope of the suspended turn's resume and returns its input, read from the log. A cancel first
 * answers every pending request `cancelled` (`by: 'cancel'`), so its calls get their `ABORTED_BEFORE_DISPATCH`.
 * @param services the agent's services
 * @param scopes the agent system's scope table
 * @param cancel the cancel that ends the suspension, if it is one
 */
export function openResumeInput(
  services: AgentMachineServices,
  scopes: ScopeTable,
  cancel: SuspensionCancel | null,
): ScopedTurnInput | null {
  const { log } = services;
  if (cancel !== null) {
    for (const data of cancelledApprovals(log.events)) log.appendCore('approval/resolved', data);
  }
  const suspension = findSuspension(log.events);
  if (suspension === undefined) return null;
  const point = findResumePoint(log.events, suspension);
  const item: InboxItem = freezeJson({
    id: point.itemId ?? `${services.agentId}:t${point.turn}:resume`,
    content: [],
    source: { kind: 'user' },
    contexts: [],
    wakeup: true,
  });
  return {
    ...openTurnInput(services, scopes, item),
    turn: point.turn,
    resume: {
      step: point.step,
      calls: point.calls,
      slots: point.slots,
      contexts: point.contexts,
      steering: suspendedSteering(log.events, suspension),
      cancel,
    },
  };
}

/**
 * Records an `inject()` made while the turn is suspended: it joins the step's held contexts (`turn/held-context`).
 * @param services the agent's services
 * @param injection the injected context
 */
export function appendHeldContext(services: AgentMachineServices, injection: Injection): void {
  const suspension = findSuspension(services.log.events);
  if (suspension === undefined) return;
  const { content, source, meta } = injection;
  services.log.appendCore('turn/held-context', {
    turn: suspension.turn,
    step: suspension.step,
    context: { content: [...content], source, ...(meta === undefined ? {} : { meta }) },
  });
}
