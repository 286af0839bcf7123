// The agent tests' shared fixtures, built on the public testing kit as a user's tests would be.

import {
  type AgentOptions,
  createSeams,
  createToolRegistry,
  defineTool,
  type LogEvent,
  type ScriptStep,
  type SeamLogger,
  type Seams,
  type ToolDefinition,
  type ToolRegistryCore,
} from 'seamchart';
import { createTestAgent as createKitTestAgent, type TestAgent as KitTestAgent } from 'seamchart/testing';
import { vi } from 'vitest';
import { z } from 'zod';

/** A logger that keeps what it is told (tests assert on it instead of printing). */
export function memoryLogger(): SeamLogger & { readonly lines: string[] } {
  const lines: string[] = [];
  return { lines, error: (message) => lines.push(message), warn: (message) => lines.push(message) };
}

/** The kit's test agent, plus the logger its seams and agent report to. */
export interface TestAgent extends KitTestAgent {
  readonly logger: ReturnType<typeof memoryLogger>;
}

/** What a project test builds an agent from. */
export interface TestAgentSetup {
  readonly script: readonly ScriptStep[];
  /** Listeners registered directly on the fresh seams (not as a plugin) before the agent is created. */
  readonly register?: (seams: Seams) => void;
  readonly tools?: ToolRegistryCore;
  /** A registry to use instead of fresh seams (which report to the memory logger). */
  readonly seams?: Seams;
  readonly agent?: Omit<AgentOptions, 'seams' | 'model' | 'tools'>;
}

/**
 * `createTestAgent` of `seamchart/testing` over seams that report to a memory logger; `register`
 * adds ad-hoc listeners under their own names (a plugin would prefix them).
 */
export function createTestAgent(setup: TestAgentSetup): TestAgent {
  const logger = memoryLogger();
  const seams = setup.seams ?? createSeams({ logger });
  setup.register?.(seams);
  const kit = createKitTestAgent({
    script: setup.script,
    seams,
    ...(setup.tools === undefined ? {} : { tools: setup.tools }),
    options: { logger, ...setup.agent },
  });
  return { ...kit, logger };
}

/** A tool that answers with its `text` argument. */
export const echoTool = defineTool({
  name: 'echo',
  description: 'echo',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

const tracked: TestAgent[] = [];

/**
 * A test agent with `echo` registered besides `tools`, disposed by `disposeTestAgents()` (call it in
 * `afterEach`), for the spec-rule tests.
 */
export function agentWithEcho(
  script: readonly ScriptStep[],
  options: Omit<TestAgentSetup, 'script' | 'tools'> & { readonly tools?: readonly ToolDefinition[] } = {},
): TestAgent {
  const { tools: extra = [], ...rest } = options;
  const tools = createToolRegistry();
  for (const tool of [echoTool, ...extra]) tools.register(tool);
  const testAgent = createTestAgent({ ...rest, script, tools });
  tracked.push(testAgent);
  return testAgent;
}

/** Restores real timers and disposes every agent `agentWithEcho` made since the last call (an `afterEach`). */
export async function disposeTestAgents(): Promise<void> {
  vi.useRealTimers();
  for (const testAgent of tracked.splice(0)) await testAgent.agent.dispose();
}

/** The text of a content array (text blocks joined). */
export function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return (content as { type?: string; text?: string }[])
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
}

/** Turn-end reasons in order. */
export function reasons(events: readonly LogEvent[]): unknown[] {
  return events.filter((e) => e.type === 'turn/end').map((e) => (e.data as { reason: unknown }).reason);
}

/** Resolves after `ms` of real time. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A promise with its resolve function exposed. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** What `eventTypes()` shows for one step answered without tool calls. */
export const answeredStep = ['step/start', 'assistant/message', 'step/end'] as const;

/** What `eventTypes()` shows for a turn that records its prompt and answers it in one step. */
export const oneStepTurn = ['turn/start', 'user/message', ...answeredStep, 'turn/end'];
