import { type Mock, vi } from 'vitest';
import type { AgentHandle, SeamLogger, ToolExecution } from '../../../seams/index.js';

/** A minimal agent handle: seams only read `id`. */
export function makeAgent(id: string): AgentHandle {
  const fail = (): never => {
    throw new Error('not used by seam tests');
  };
  return {
    id,
    status: 'idle',
    log: { events: [], subscribe: () => () => {}, append: fail },
    followup: fail,
    queue: fail,
    steer: fail,
    inject: fail,
    cancel: fail,
  };
}

/** A sealed-looking tool execution. */
export function makeExec(overrides: Partial<ToolExecution> = {}): ToolExecution {
  return Object.freeze({
    callId: 'call-1',
    name: 'read_file',
    arguments: Object.freeze({ path: 'a.txt' }),
    token: Symbol('call-1'),
    signal: new AbortController().signal,
    ...overrides,
  });
}

/** A logger whose calls the test can read. */
export function makeLogger(): SeamLogger & { error: Mock<SeamLogger['error']> } {
  return { error: vi.fn<SeamLogger['error']>() };
}

/** Turn-ish ctx fields for agent seams. */
export function makeTurnCtx(agentId = 'a'): { agent: AgentHandle; turn: number; signal: AbortSignal } {
  return { agent: makeAgent(agentId), turn: 1, signal: new AbortController().signal };
}
