import { describeThrown } from '../../kernel/index.js';
import type { DispatchScope } from '../../seams/index.js';
import type { TurnMachineServices } from './services.js';

/**
 * The dispatch scope of an agent's own notifications: a contained listener failure becomes an
 * `agent/error` (whose own listeners' failures reach only the registry's logger).
 * @param services where `agent/error` goes
 * @param agentId the agent
 * @param turn the open turn, if any
 */
export function createReportingScope(
  services: Pick<TurnMachineServices, 'reportError'>,
  agentId: string,
  turn?: number,
): DispatchScope {
  const at = turn === undefined ? {} : { turn };
  return {
    agentId,
    ...at,
    onContainedError: ({ seam, listener, error }) =>
      services.reportError({
        error: { message: `Listener "${listener}" on seam "${seam}" failed: ${describeThrown(error)}` },
        origin: seam,
        ...at,
      }),
  };
}

// One agent-level scope per services object: the agent's own notifications share it (it is never written to).
const agentScopes = new WeakMap<object, DispatchScope>();

/**
 * The dispatch scope of an agent's own notifications (no turn), built once per services object.
 * @param services where `agent/error` goes; also the cache key
 */
export function agentReportingScope(
  services: Pick<TurnMachineServices, 'reportError'> & { readonly agentId: string },
): DispatchScope {
  let scope = agentScopes.get(services);
  if (scope === undefined) {
    scope = Object.freeze(createReportingScope(services, services.agentId));
    agentScopes.set(services, scope);
  }
  return scope;
}

// The session-start listener still running, per agent services object, so a timeout can name it.
const pendingSessionStart = new WeakMap<object, string>();

/**
 * Records which `agent/session-start` listener is running (`undefined` once all settled).
 * @param services the agent's services (the key)
 * @param listener the running listener's name
 */
export function trackSessionStartListener(services: object, listener: string | undefined): void {
  if (listener === undefined) pendingSessionStart.delete(services);
  else pendingSessionStart.set(services, listener);
}

/**
 * The `agent/session-start` listener that was still running, if any.
 * @param services the agent's services
 */
export function pendingSessionStartListener(services: object): string | undefined {
  return pendingSessionStart.get(services);
}
