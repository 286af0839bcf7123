import { getEventListeners } from 'node:events';
import { createSeams, createToolRegistry, defineTool, type Seams } from 'seamchart';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Actor } from 'xstate';
import { z } from 'zod';
import type { AgentHandle } from '../../../seams/types.js';
import type { ExecuteOptions, ToolCallRequest } from '../../../tools/types.js';

// A standalone `tools.execute` with no decision listener runs on the direct path (no actor); the same
// calls with a pass-through `tools/pre-execute` listener run the stepped toolCall chart (one actor).
// Both must resolve the same result and tell `tools/result` and `seam/decided` observers the same
// thing (the pass-through's decision is named by its listener instead of `default`).

const echo = defineTool({
  name: 'echo',
  description: 'echoes',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});
const broken = defineTool({
  name: 'broken',
  description: 'rejects',
  parameters: z.object({}),
  execute: async () => {
    throw new Error('disk on fire');
  },
});
const throwsAtOnce = defineTool({
  name: 'throwsAtOnce',
  description: 'throws before returning anything',
  parameters: z.object({}),
  execute: () => {
    throw new TypeError('no such file');
  },
});
const shouting = defineTool({
  name: 'shouting',
  description: 'finalizes its content',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
  finalizeContent: (_exec, result) =>
    result.isError ? undefined : [{ type: 'text', text: String(result.value).toUpperCase() }],
});
const badFinalizer = defineTool({
  name: 'badFinalizer',
  description: 'its finalizeContent throws',
  parameters: z.object({}),
  execute: () => 'fine',
  finalizeContent: () => {
    throw new Error('finalizer broke');
  },
});
const composite = defineTool({
  name: 'composite',
  description: 'defers a context',
  parameters: z.object({}),
  execute: (_args, exec) => {
    exec.deferContext({
      content: [{ type: 'text', text: 'later' }],
      source: { kind: 'plugin', plugin: 't' },
    });
    return 'done';
  },
});
const bulky = defineTool({
  name: 'bulky',
  description: 'too long',
  parameters: z.object({}),
  maxContentBytes: 64,
  execute: () => 'é'.repeat(200),
});
/** Says who it runs for and under which parent call: the live handles reach the body. */
const whoAmI = defineTool({
  name: 'whoAmI',
  description: 'reports its agent and parent',
  parameters: z.object({}),
  execute: (_args, exec) => `${exec.agent?.id ?? 'none'} ${String(exec.parent?.description)}`,
});

let bodyStarted: () => void = () => {};
/** Honors its signal: rejects once the cancel reaches it. */
const waiting = defineTool({
  name: 'waiting',
  description: 'waits for the cancel',
  parameters: z.object({}),
  execute: (_args, exec) => {
    bodyStarted();
    return new Promise<string>((_, reject) =>
      exec.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true }),
    );
  },
});
/** Ignores its signal: only core dispatch's cancel grace ends it. */
const stubborn = defineTool({
  name: 'stubborn',
  description: 'never settles',
  parameters: z.object({}),
  execute: () => {
    bodyStarted();
    return new Promise<string>(() => {});
  },
});
const tools = [
  echo,
  broken,
  throwsAtOnce,
  shouting,
  badFinalizer,
  composite,
  bulky,
  whoAmI,
  waiting,
  stubborn,
];

type Path = 'direct' | 'stepped';
const passThrough = (seams: Seams): void => void seams.on('tools/pre-execute', (_exec, next) => next());

interface Run {
  /** Aborts the caller's signal when the body started, or right after `execute` returned. */
  readonly abort?: 'when-started' | 'right-after-call';
  readonly options?: Omit<ExecuteOptions, 'seams'>;
}

async function executeOn(path: Path, request: ToolCallRequest, run: Run = {}) {
  const seams = createSeams();
  if (path === 'stepped') passThrough(seams);
  const observed: unknown[] = [];
  const decided: unknown[] = [];
  seams.on('tools/result', ({ exec, result }) => void observed.push({ callId: exec.callId, result }));
  seams.on('seam/decided', ({ seam, callId, decidedBy, decision }) => {
    decided.push({ seam, callId, decidedBy: path === 'stepped' ? 'default' : decidedBy, decision });
  });
  const registry = createToolRegistry();
  for (const tool of tools) registry.register(tool);
  const controller = new AbortController();
  const started = new Promise<void>((resolve) => {
    bodyStarted = resolve;
  });
  const actorsStarted = vi.spyOn(Actor.prototype, 'start');
  try {
    const pending = registry.execute(request, {
      seams,
      signal: controller.signal,
      cancelGraceMs: 20,
      ...run.options,
    });
    if (run.abort === 'right-after-call') controller.abort();
    if (run.abort === 'when-started') void started.then(() => controller.abort());
    const result = await pending;
    // Nothing of the call stays on the caller's signal.
    expect(getEventListeners(controller.signal, 'abort')).toEqual([]);
    return {
      result,
      json: JSON.stringify(result),
      observed,
      decided,
      actors: actorsStarted.mock.calls.length,
    };
  } finally {
    actorsStarted.mockRestore();
  }
}

/** Runs `request` on both paths and expects the same outcome; returns the direct path's. */
async function expectSamePaths(request: ToolCallRequest, run?: Run) {
  const direct = await executeOn('direct', request, run);
  const stepped = await executeOn('stepped', request, run);
  // Neither path runs an actor: the chart of the stepped path is stepped by the engine.
  expect(direct.actors).toBe(0);
  expect(stepped.actors).toBe(0);
  expect(direct.json).toBe(stepped.json);
  expect(direct.result).toEqual(stepped.result);
  expect(Object.isFrozen(direct.result)).toBe(true);
  expect(direct.observed).toEqual(stepped.observed);
  expect(direct.decided).toEqual(stepped.decided);
  return direct;
}

const defaults = (callId: string) => [
  { seam: 'tools/pre-execute', callId, decidedBy: 'default', decision: { kind: 'allow' } },
  { seam: 'tools/post-execute', callId, decidedBy: 'default', decision: { kind: 'accept' } },
];

describe('a standalone call with no decision listener returns what the stepped chart returns', () => {
  afterEach(() => {
    bodyStarted = () => {};
  });

  it('successes with string and object arguments, with the default decisions reported', async () => {
    const fromText = await expectSamePaths({ name: 'echo', arguments: '{"text":"hi"}', callId: 'c1' });
    expect(fromText.result).toMatchObject({ isError: false, value: 'hi' });
    expect(fromText.decided).toEqual(defaults('c1'));
    expect(fromText.observed).toEqual([{ callId: 'c1', result: fromText.result }]);
    const fromObject = await expectSamePaths({ name: 'echo', arguments: { text: 'yo' } });
    expect(fromObject.result).toMatchObject({ isError: false, value: 'yo' });
    // The registry names a call that has no id.
    expect(fromObject.decided).toEqual(defaults('call-1'));
  });

  it('bad arguments and an unknown tool settle before dispatch, with no default decided', async () => {
    for (const args of ['{"text":', { text: 7 }]) {
      const bad = await expectSamePaths({ name: 'echo', arguments: args });
      expect(bad.result).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } });
    }
    const unknown = await expectSamePaths({ name: 'nope', arguments: '{}' });
    expect(unknown.result).toMatchObject({ isError: true, error: { code: 'UNKNOWN_TOOL' } });
    expect(unknown.observed).toHaveLength(1);
  });

  it('a tool that rejects and one that throws synchronously are TOOL_FAILED', async () => {
    const rejected = await expectSamePaths({ name: 'broken', arguments: {} });
    expect(rejected.result).toMatchObject({ error: { code: 'TOOL_FAILED', message: 'disk on fire' } });
    const thrown = await expectSamePaths({ name: 'throwsAtOnce', arguments: {} });
    expect(thrown.result).toMatchObject({ error: { code: 'TOOL_FAILED', message: 'no such file' } });
    expect(thrown.decided).toEqual(defaults('call-1'));
  });

  it('a finalizer, a finalizer that throws, deferred contexts, a cut content', async () => {
    const shouted = await expectSamePaths({ name: 'shouting', arguments: { text: 'quiet' } });
    expect(shouted.result.content).toEqual([{ type: 'text', text: 'QUIET' }]);
    const failed = await expectSamePaths({ name: 'badFinalizer', arguments: {} });
    expect(failed.result).toMatchObject({
      isError: true,
      error: { code: 'PIPELINE_ERROR', message: expect.stringContaining('finalizer broke') },
    });
    const deferredContext = await expectSamePaths({ name: 'composite', arguments: {} });
    expect(deferredContext.result.additionalContexts).toMatchObject([{ content: [{ text: 'later' }] }]);
    const cut = await expectSamePaths({ name: 'bulky', arguments: {} });
    expect(cut.result).toMatchObject({ truncated: {} });
  });

  it('the agent and parent handles of the request reach the body; an approval channel changes nothing', async () => {
    const agent = { id: 'agent-7' } as AgentHandle;
    const approval = { request: vi.fn(async () => 'rejected' as const) };
    const run = await expectSamePaths(
      { name: 'whoAmI', arguments: {}, agent, parent: Symbol('outer') },
      { options: { approval } },
    );
    expect(run.result).toMatchObject({ isError: false, value: 'agent-7 outer' });
    // No listener asks, so the channel is never asked (on either path).
    expect(approval.request).not.toHaveBeenCalled();
  });

  it('a signal aborted before the call settles before dispatch with no default decided', async () => {
    const before = await expectSamePaths(
      { name: 'stubborn', arguments: {} },
      { options: { signal: AbortSignal.abort() } },
    );
    expect(before.result).toMatchObject({ error: { code: 'ABORTED_BEFORE_DISPATCH' } });
    expect(before.decided).toEqual([]);
  });

  it('a signal aborted right after the call lands where the call first waits: its body, or a listener before it', async () => {
    // A call runs synchronously up to its first wait: with no listener that is its body (started, then cut
    // off by the grace: 'did not stop'); with a pre-execute listener it is that listener's decision.
    const direct = await executeOn(
      'direct',
      { name: 'stubborn', arguments: {} },
      { abort: 'right-after-call' },
    );
    expect(direct.result).toMatchObject({ error: { code: 'ABORTED', note: 'did not stop' } });
    expect(direct.decided).toEqual(defaults('call-1'));
    const stepped = await executeOn(
      'stepped',
      { name: 'stubborn', arguments: {} },
      { abort: 'right-after-call' },
    );
    expect(stepped.result).toMatchObject({ error: { code: 'ABORTED_BEFORE_DISPATCH' } });
    expect(stepped.decided).toEqual([
      { seam: 'tools/pre-execute', callId: 'call-1', decidedBy: 'default', decision: { kind: 'allow' } },
    ]);
    expect(stepped.observed).toHaveLength(1);
  });

  it('a cancel mid-body: a body that stops is ABORTED, one that ignores it is cut off by the grace', async () => {
    const stopped = await expectSamePaths({ name: 'waiting', arguments: {} }, { abort: 'when-started' });
    expect(stopped.result).toMatchObject({ isError: true, error: { code: 'ABORTED' } });
    expect(stopped.decided).toEqual(defaults('call-1'));
    const cut = await expectSamePaths({ name: 'stubborn', arguments: {} }, { abort: 'when-started' });
    expect(cut.result).toMatchObject({
      isError: true,
      error: { code: 'ABORTED', note: 'did not stop' },
    });
    expect(cut.decided).toEqual(defaults('call-1'));
  });
});

describe('a direct standalone call leaves nothing behind', () => {
  it('no timer is left once a stopped body or a cut-off one resolved', async () => {
    const timers = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    // A stepped call that was cut off leaves core dispatch's grace timer (20 ms here) running a while.
    await new Promise((resolve) => setTimeout(resolve, 60));
    for (const name of ['waiting', 'stubborn']) {
      const before = timers();
      const { result } = await executeOn('direct', { name, arguments: {} }, { abort: 'when-started' });
      expect(result.isError).toBe(true);
      expect(timers()).toBe(before);
    }
  });
});
