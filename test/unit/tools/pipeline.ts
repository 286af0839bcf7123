// Shared fixtures of the tool-pipeline rule tests (tools.md, seams.md tool rows, machines.md toolBatch):
// a `probe` tool, seams that trace which phase ran, and agents built with the public testing kit.
import {
  type Agent,
  type ApprovalOutcome,
  checkInvariants,
  createSeams,
  createToolRegistry,
  defineTool,
  type HookContext,
  type Seams,
  type ToolResult,
} from 'seamchart';
import { createTestAgent } from 'seamchart/testing';
import { expect } from 'vitest';
import { z } from 'zod';

export const ctx = (text: string): HookContext => ({
  content: [{ type: 'text', text }],
  source: { kind: 'plugin', plugin: 'audit' },
});
export const texts = (contexts: readonly HookContext[] | undefined): string[] =>
  (contexts ?? []).map((c) => (c.content[0] as { text: string }).text);
export const quiet = { error: () => {}, warn: () => {} };
/** Runs `effect` for its side effect (already evaluated) and yields `value`. */
export const also = <T>(_effect: unknown, value: T): T => value;

export interface Trace {
  readonly seams: Seams;
  readonly phases: string[];
  readonly results: ToolResult[];
}

/** Seams that record which phase ran; `options` adds behaviour per phase. */
export function tracedSeams(options: {
  pre?: (exec: never) => unknown;
  guard?: (exec: never) => string | undefined;
  wrap?: (exec: never, next: (o?: { signal: AbortSignal }) => Promise<ToolResult>) => Promise<ToolResult>;
  post?: (c: { result: ToolResult }, next: () => Promise<unknown>) => unknown;
  approval?: () => Promise<ApprovalOutcome> | ApprovalOutcome;
}): Trace {
  const seams = createSeams({ logger: quiet });
  const phases: string[] = [];
  const results: ToolResult[] = [];
  seams.on('tools/pre-execute', async (exec, next) => {
    phases.push('pre');
    return (options.pre ? options.pre(exec as never) : next()) as never;
  });
  seams.guard((exec) => {
    phases.push('guard');
    return options.guard ? options.guard(exec as never) : undefined;
  });
  seams.on('tools/execute', async (exec, next) => {
    phases.push('execute');
    return (options.wrap ? options.wrap(exec as never, next as never) : next()) as never;
  });
  seams.on('tools/post-execute', async (c, next) => {
    phases.push('post');
    return (options.post ? options.post(c as never, next as never) : next()) as never;
  });
  seams.on('tools/result', (c) => {
    phases.push('result');
    results.push(c.result);
  });
  if (options.approval) {
    const answer = options.approval;
    seams.setApproval({
      request: async () => {
        phases.push('approval');
        return answer();
      },
    });
  }
  return { seams, phases, results };
}

export function tool(overrides: Partial<Parameters<typeof defineTool>[0]> & { phases?: string[] } = {}) {
  const { phases, ...rest } = overrides;
  return defineTool({
    name: 'probe',
    description: 'probe',
    parameters: z.object({ n: z.number().optional() }),
    execute: () => {
      phases?.push('body');
      return 'ok';
    },
    finalizeContent: () => {
      phases?.push('finalize');
      return undefined;
    },
    ...rest,
  } as never);
}

export async function run(
  trace: Trace,
  args: unknown = {},
  extra: Partial<Parameters<typeof defineTool>[0]> = {},
  opts: Record<string, unknown> = {},
) {
  const tools = createToolRegistry();
  tools.register(tool({ phases: trace.phases, ...extra }));
  const result = await tools.execute({ name: 'probe', arguments: args }, {
    seams: trace.seams,
    ...opts,
  } as never);
  return result;
}

export function expectFrozenDeep(value: unknown): void {
  if (value !== null && typeof value === 'object') {
    expect(Object.isFrozen(value)).toBe(true);
    for (const inner of Object.values(value)) expectFrozenDeep(inner);
  }
}

export function errorOf(result: ToolResult) {
  expect(result.isError).toBe(true);
  return (result as Extract<ToolResult, { isError: true }>).error;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A model call of the scripted answer. */
export interface ProbeCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** Runs one agent turn whose first answer makes `calls`, then says done; the agent is idle on return. */
export async function agentRun(options: {
  tools: ReturnType<typeof createToolRegistry>;
  seams: Seams;
  calls: readonly ProbeCall[];
  extra?: Record<string, unknown>;
}): Promise<Agent> {
  const { agent } = createTestAgent({
    seams: options.seams,
    tools: options.tools,
    script: [{ toolCalls: options.calls as never }, { text: 'done' }],
    options: { logger: quiet, ...options.extra },
  });
  agent.followup('go');
  await agent.whenIdle();
  return agent;
}

/** `agentRun` with `count` calls `c1…cN` of `probe`, each with `{ n }`. */
export function runAgent(
  seams: Seams,
  tools: ReturnType<typeof createToolRegistry>,
  count: number,
  extra: Record<string, unknown> = {},
): Promise<Agent> {
  const calls = Array.from({ length: count }, (_, i) => ({
    id: `c${i + 1}`,
    name: 'probe',
    arguments: { n: i + 1 },
  }));
  return agentRun({ seams, tools, calls, extra });
}

/** The tool rows of the log: `tool/call:c1`, `tool/result:c2:CODE`, `ctx:<text>`. */
export const rows = (agent: Agent): string[] =>
  agent.log.events
    .filter((e) => ['tool/call', 'tool/result', 'context/message'].includes(e.type))
    .map((e) => {
      const d = e.data as {
        callId?: string;
        content?: Array<{ text: string }>;
        error?: { code: string; message: string };
      };
      if (e.type === 'context/message') return `ctx:${d.content?.[0]?.text}`;
      return `${e.type}:${d.callId}${d.error ? `:${d.error.code}` : ''}`;
    });

/** A phase of one call that `cancelDuring` holds until the turn is cancelled. */
export type Phase = 'pre' | 'approval' | 'body' | 'post';

/** Runs one call through an agent, cancels while `phase` hangs, and returns the phases that ran and the result. */
export async function cancelDuring(phase: Phase) {
  const seams = createSeams({ logger: quiet });
  const phases: string[] = [];
  let entered!: () => void;
  const reached = new Promise<void>((r) => {
    entered = r;
  });
  const hang = (name: Phase) => {
    phases.push(name);
    if (name === phase) {
      entered();
      return new Promise<never>(() => {});
    }
    return undefined;
  };
  seams.on(
    'tools/pre-execute',
    async (_e, next) => (await hang('pre')) ?? (phase === 'approval' ? { kind: 'ask' } : next()),
  );
  seams.guard(() => {
    phases.push('guard');
    return undefined;
  });
  seams.on('tools/post-execute', async (_c, next) => (await hang('post')) ?? next());
  seams.on('tools/result', (c) => {
    phases.push(`result:${c.result.isError ? c.result.error.code : 'ok'}`);
  });
  const tools = createToolRegistry();
  tools.register(
    tool({
      execute: async () => (await hang('body')) ?? 'x',
      finalizeContent: () => also(phases.push('finalize'), undefined),
    } as never),
  );
  const { agent } = createTestAgent({
    seams,
    tools,
    script: [{ toolCalls: [{ id: 'c1', name: 'probe', arguments: {} }] }, { text: 'done' }],
    options: {
      logger: quiet,
      cancelGraceMs: 20,
      approval: { request: async () => (await hang('approval')) ?? 'allowed-once' },
    },
  });
  agent.followup('go');
  await reached;
  agent.cancel();
  await agent.whenIdle();
  await sleep(1);
  const result = agent.log.events.find((e) => e.type === 'tool/result')!.data as {
    error?: { code: string; note?: string };
  };
  expect(checkInvariants(agent.log.events)).toEqual([]);
  await agent.dispose();
  return { phases, result };
}

/** Asserts the agent's log keeps every invariant, then disposes the agent. */
export async function expectSoundAndDispose(agent: Agent): Promise<void> {
  expect(checkInvariants(agent.log.events)).toEqual([]);
  await agent.dispose();
}

/** A finalizeContent that throws, counting its calls (the table says: once). */
export function throwingFinalizer(): { finalizeContent: () => never; readonly calls: () => number } {
  let calls = 0;
  return {
    finalizeContent: () => {
      calls++;
      throw new Error('fin');
    },
    calls: () => calls,
  };
}

/** Runs `probe` standalone on `seams`; its body pushes the signal it was given onto `seen`. */
export async function runRecordingSignals(seams: Seams, seen: AbortSignal[]): Promise<ToolResult> {
  const tools = createToolRegistry();
  tools.register(
    tool({
      execute: (_a: unknown, exec: { signal: AbortSignal }) => also(seen.push(exec.signal), 'x'),
    } as never),
  );
  return tools.execute({ name: 'probe', arguments: {} }, { seams });
}
