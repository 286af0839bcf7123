import type { AgentHandle, Seams } from '../seams/index.js';
import { BackgroundHooks } from './background.js';
import { EnvFileStore } from './envFiles.js';
import type { BridgeRuntime } from './fire.js';
import { JudgedCalls } from './judgedCalls.js';
import type { PayloadScope } from './payload.js';
import { agentCwd } from './payload.js';
import { ClaudeTranscripts } from './transcript.js';
import { TurnStates } from './turnState.js';

/** What every seam listener of one applied bridge shares. */
export interface ListenerKit {
  readonly runtime: BridgeRuntime;
  readonly seams: Seams;
  readonly states: TurnStates;
  readonly envFiles: EnvFileStore;
  /** PreToolUse verdicts reached at `tools/prepare`, waiting for the same call's `tools/pre-execute`. */
  readonly judged: JudgedCalls;
  /** Claude-format transcripts (Claude dialect only). */
  readonly transcripts?: ClaudeTranscripts;
  /** Hooks running in the background (`async`, `asyncRewake`, a `{"async":true}` answer). */
  readonly background: BackgroundHooks;
}

/** Creates the shared state of one `apply()`. */
export function createListenerKit(runtime: BridgeRuntime, seams: Seams): ListenerKit {
  return {
    runtime,
    seams,
    states: new TurnStates(),
    envFiles: new EnvFileStore(runtime.rules.envFileVariables),
    judged: new JudgedCalls(),
    background: new BackgroundHooks(runtime.rules.dialect, seams.logger),
    ...(runtime.rules.claudeTranscript
      ? { transcripts: new ClaudeTranscripts(runtime.transcriptPath, runtime.model || 'seamchart') }
      : {}),
  };
}

/** Session, cwd, transcript and model of a payload. */
export function payloadScope(kit: ListenerKit, agent: AgentHandle | undefined, turn?: number): PayloadScope {
  const cwd = agentCwd(agent);
  // Claude: a transcript the scripts can read, written up to this moment before the hook starts.
  const transcriptPath =
    kit.transcripts !== undefined && agent !== undefined
      ? kit.transcripts.sync(agent, cwd)
      : kit.runtime.transcriptPath;
  return {
    sessionId: agent?.id ?? '',
    cwd,
    transcriptPath,
    model: kit.runtime.model,
    ...(turn === undefined ? {} : { turn }),
  };
}

/** The listener name for one hook event of this bridge (what `decidedBy` and `stoppedBy` show). */
export function listenerName(kit: ListenerKit, suffix?: string): string {
  const plugin = kit.runtime.rules.pluginName;
  return suffix === undefined ? plugin : `${plugin}.${suffix}`;
}
