import type { AgentHandle, Seams } from '../seams/index.js';
import type { BridgeRuntime } from './fire.js';
import type { PayloadScope } from './payload.js';
import { agentCwd } from './payload.js';
import { TurnStates } from './turnState.js';

/** What every seam listener of one applied bridge shares. */
export interface ListenerKit {
  readonly runtime: BridgeRuntime;
  readonly seams: Seams;
  readonly states: TurnStates;
}

/** Creates the shared state of one `apply()`. */
export function createListenerKit(runtime: BridgeRuntime, seams: Seams): ListenerKit {
  return { runtime, seams, states: new TurnStates() };
}

/** Session, cwd, transcript and model of a payload. */
export function payloadScope(kit: ListenerKit, agent: AgentHandle | undefined, turn?: number): PayloadScope {
  return {
    sessionId: agent?.id ?? '',
    cwd: agentCwd(agent),
    transcriptPath: kit.runtime.transcriptPath,
    model: kit.runtime.model,
    ...(turn === undefined ? {} : { turn }),
  };
}

/** The listener name for one hook event of this bridge (what `decidedBy` and `stoppedBy` show). */
export function listenerName(kit: ListenerKit, suffix?: string): string {
  const plugin = kit.runtime.rules.pluginName;
  return suffix === undefined ? plugin : `${plugin}.${suffix}`;
}
