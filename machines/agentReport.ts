import type { DispatchScope } from '../seams/types.js';
import type { TurnMachineServices } from './services.js';
import { toFailure } from './turnRules.js';

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
        error: { message: `Listener "${listener}" on seam "${seam}" failed: ${toFailure(error).message}` },
        origin: seam,
        ...at,
      }),
  };
}
