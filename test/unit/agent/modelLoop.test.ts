import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgentOptions,
  type AgentStreamItem,
  checkInvariants,
  createAgent,
  createJsonlStore,
  createSeams,
  createToolRegistry,
  defineTool,
  formatViolation,
  type LogEvent,
  type ModelAdapter,
  ModelRequestError,
  openAICompatible,
  openJsonlStore,
  type Seams,
  type StreamedDelta,
  scriptedModel,
} from '../../../index.js';
import { createTestAgent } from '../../../testing/index.js';
import { useModelServers } from './modelServer.js';

const serveModel = useModelServers();

const echo = defineTool({
  name: 'echo',
  description: 'Echo the text',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

const callEcho = (id: string) => ({ toolCalls: [{ id, name: 'echo', arguments: { text: id } }] });

function expectSound(events: readonly LogEvent[]): void {
  expect(checkInvariants(events).map(formatViolation)).toEqual([]);
}

/** A real agent over an OpenAI-compatible adapter pointed at the local server. */
function serverAgent(baseURL: string, options: Partial<AgentOptions> & { adapterSettings?: object } = {}) {
  const seams = options.seams ?? createSeams();
  const tools = createToolRegistry();
  tools.register(echo);
  const { adapterSettings, ...rest } = options;
  const model = openAICompatible({
    baseURL,
    apiKey: '',
    model: 'test-model',
    ...(adapterSettings ? { settings: adapterSettings } : {}),
  });
  return createAgent({ ...rest, seams, tools, model });
}

async function runToIdle(agent: { whenIdle(): Promise<void>; dispose(): Promise<void> }) {
  await agent.whenIdle();
  await agent.dispose();
}

type Body = { messages: { role: string; content: unknown }[]; [key: string]: unknown };

describe('M01 instructions', () => {
  it('M01 a string reaches every request of the scripted model', async () => {
    const { agent, model, expectInvariants } = createTestAgent({
      tools: [echo],
      script: [callEcho('c1'), { text: 'done' }, { text: 'again' }],
      options: { instructions: 'Answer in one line.' },
    });
    agent.followup('one');
    agent.followup('two');
    await runToIdle(agent);
    expect(model.requests.map((r) => r.instructions)).toEqual(Array(3).fill('Answer in one line.'));
    // Configuration, not history: nothing in the log carries them.
    expect(JSON.stringify(agent.log.events)).not.toContain('Answer in one line.');
    expectInvariants();
  });

  it('M01 a function of turn and step is evaluated before each request', async () => {
    const seen: string[] = [];
    const { agent, model, expectInvariants } = createTestAgent({
      tools: [echo],
      script: [callEcho('c1'), { text: 'done' }, { text: 'again' }],
      options: {
        instructions: async ({ agent: handle, turn, step }) => {
          seen.push(handle.id);
          return `turn ${turn}, step ${step}`;
        },
      },
    });
    agent.followup('one');
    agent.followup('two');
    await runToIdle(agent);
    expect(model.requests.map((r) => r.instructions)).toEqual([
      'turn 1, step 1',
      'turn 1, step 2',
      'turn 2, step 1',
    ]);
    expect(seen).toEqual([agent.id, agent.id, agent.id]);
    expectInvariants();
  });

  it('M01 the OpenAI-compatible adapter sends them as the first system message', async () => {
    const server = await serveModel([
      { toolCalls: [{ id: 'c1', name: 'echo', arguments: '{"text":"x"}' }] },
      { chunks: ['ok'] },
    ]);
    const agent = serverAgent(server.baseURL, { instructions: ({ step }) => `You are step ${step}.` });
    agent.followup('hi');
    await runToIdle(agent);
    const bodies = server.received.map((r) => r.body as Body);
    expect(bodies.map((b) => b.messages[0])).toEqual([
      { role: 'system', content: 'You are step 1.' },
      { role: 'system', content: 'You are step 2.' },
    ]);
    expect(bodies.map((b) => b.messages.filter((m) => m.role === 'system').length)).toEqual([1, 1]);
    expect(bodies[0]!.messages[1]).toEqual({ role: 'user', content: 'hi' });
    expectSound(agent.log.events);
  });

  it('M01 a throwing function is INSTRUCTIONS_FAILED through agent/request-error, and a retry calls it again', async () => {
    let calls = 0;
    const errors: unknown[] = [];
    const { agent, model, expectInvariants } = createTestAgent({
      script: [{ text: 'recovered' }],
      plugins: [
        {
          name: 'retry-once',
          apply: (seams) =>
            seams.on('agent/request-error', (ctx) => {
              errors.push(ctx.error);
              return { action: ctx.priorFailures === 0 ? 'retry' : 'fail' };
            }),
        },
      ],
      options: {
        instructions: () => {
          calls++;
          if (calls === 1) throw new Error('the prompt store is down');
          return 'fine now';
        },
      },
    });
    agent.followup('hi');
    await runToIdle(agent);
    expect(errors).toEqual([{ message: 'the prompt store is down', code: 'INSTRUCTIONS_FAILED' }]);
    // The failed step never reached the model; the retry did, with the instructions.
    expect(model.requests.map((r) => r.instructions)).toEqual(['fine now']);
    const end = agent.log.events.at(-1)!;
    expect(end.data).toMatchObject({ reason: { kind: 'completed' } });
    expectInvariants();
  });

  it('M01 without a recovery listener the turn ends error with code INSTRUCTIONS_FAILED', async () => {
    const { agent, model, notifications, expectInvariants } = createTestAgent({
      script: [{ text: 'never' }],
      options: { instructions: () => Promise.reject(new Error('no prompt')) },
    });
    agent.followup('hi');
    await runToIdle(agent);
    expect(model.requests).toHaveLength(0);
    expect(agent.log.events.at(-1)!.data).toEqual({
      turn: 1,
      reason: { kind: 'error', step: 1, message: 'no prompt', code: 'INSTRUCTIONS_FAILED' },
    });
    expect(notifications.of('agent/error').map((e) => e.error)).toEqual([
      { message: 'no prompt', code: 'INSTRUCTIONS_FAILED' },
    ]);
    expectInvariants();
  });

  it('M01 a cancel leaves instructions that never settle at once, and the turn ends aborted', async () => {
    const seams = createSeams();
    let started = false;
    const agent = createAgent({
      seams,
      tools: createToolRegistry(),
      model: scriptedModel([{ text: 'never asked' }]),
      instructions: () => {
        started = true;
        return new Promise<string>(() => {});
      },
    });
    seams.on('session/event', ({ event }) => {
      if (event.type === 'step/start') queueMicrotask(() => agent.cancel());
    });
    agent.followup('hi');
    await runToIdle(agent);
    expect(started).toBe(true);
    expect(agent.log.events.at(-1)!.data).toEqual({ turn: 1, reason: { kind: 'aborted' } });
    expectSound(agent.log.events);
  });

  it('M01 refuses instructions that are neither a string nor a function', () => {
    expect(() =>
      createAgent({
        seams: createSeams(),
        tools: createToolRegistry(),
        model: scriptedModel([]),
        instructions: 42 as never,
      }),
    ).toThrow('Expected the `instructions` option of createAgent() to be a string or a function');
  });
});

describe('M02 model settings', () => {
  it('M02 agent settings merge over the adapter’s and appear in the body the local server receives', async () => {
    const server = await serveModel([{ chunks: ['ok'] }]);
    const agent = serverAgent(server.baseURL, {
      adapterSettings: {
        temperature: 0.2,
        maxOutputTokens: 64,
        extra: { reasoning_effort: 'low', user: 'a' },
      },
      modelSettings: { temperature: 0.7, seed: 3, stop: ['END'], extra: { user: 'b' } },
    });
    agent.followup('hi');
    await runToIdle(agent);
    expect(server.received[0]!.body).toMatchObject({
      temperature: 0.7,
      max_tokens: 64,
      seed: 3,
      stop: ['END'],
      reasoning_effort: 'low',
      user: 'b',
    });
    expectSound(agent.log.events);
  });

  it('M02 the scripted model records the merged settings on every request', async () => {
    const seams = createSeams();
    const model = scriptedModel([{ text: 'ok' }], { settings: { topP: 0.9, temperature: 1 } });
    const agent = createAgent({
      seams,
      tools: createToolRegistry(),
      model,
      modelSettings: { temperature: 0 },
    });
    agent.followup('hi');
    await runToIdle(agent);
    expect(model.requests[0]!.settings).toEqual({ topP: 0.9, temperature: 0 });
    expectSound(agent.log.events);
  });

  it('M02 an unknown setting is a TypeError at creation', () => {
    expect(() =>
      createAgent({
        seams: createSeams(),
        tools: createToolRegistry(),
        model: scriptedModel([]),
        modelSettings: { temperature: 0.5, max_tokens: 10 } as never,
      }),
    ).toThrow(
      /createAgent\(\) option `modelSettings` to have only known settings .* got unknown `max_tokens`/,
    );
  });

  it('M02 a forcing toolChoice applies to the first step only, unless resetToolChoice is false', async () => {
    const script = [callEcho('c1'), { text: 'done' }];
    const forced = createTestAgent({
      tools: [echo],
      script,
      options: { modelSettings: { toolChoice: 'required' } },
    });
    forced.agent.followup('go');
    await runToIdle(forced.agent);
    expect(forced.model.requests.map((r) => r.settings?.toolChoice)).toEqual(['required', 'auto']);
    forced.expectInvariants();

    const sticky = createTestAgent({
      tools: [echo],
      script,
      options: { modelSettings: { toolChoice: { name: 'echo' }, resetToolChoice: false } },
    });
    sticky.agent.followup('go');
    await runToIdle(sticky.agent);
    expect(sticky.model.requests.map((r) => r.settings?.toolChoice)).toEqual([
      { name: 'echo' },
      { name: 'echo' },
    ]);
    sticky.expectInvariants();
  });
});

/** A continuation plugin: always `continue` in turn 1, with a reason when asked. */
function continueInTurnOne(withReason: boolean, onStep?: (seams: Seams, step: number) => void) {
  return {
    name: 'keep-going',
    apply: (seams: Seams) =>
      seams.on('agent/turn-continuation', (ctx) => {
        onStep?.(seams, ctx.step);
        if (ctx.turn !== 1) return ctx.defaultDecision;
        return withReason
          ? {
              action: 'continue' as const,
              reason: {
                content: [{ type: 'text' as const, text: 'keep going' }],
                source: { kind: 'plugin' as const, plugin: 'keep-going' },
              },
            }
          : { action: 'continue' as const };
      }),
  };
}

describe('M03 the step cap', () => {
  it('M03 a continuation that always says continue stops at maxStepsPerTurn with turn/end{max-steps}', async () => {
    const { agent, model, expectInvariants } = createTestAgent({
      script: [{ text: 'a' }, { text: 'b' }, { text: 'c' }, { text: 'never' }],
      plugins: [continueInTurnOne(false)],
      options: { maxStepsPerTurn: 3 },
    });
    agent.followup('go');
    await agent.whenIdle();
    expect(agent.status).toBe('idle');
    await agent.dispose();
    expect(model.requests).toHaveLength(3);
    expect(agent.log.events.at(-1)!.data).toEqual({ turn: 1, reason: { kind: 'max-steps', steps: 3 } });
    expectInvariants();
  });

  it('M03 with a reason every step: the reason is dropped at the cap, a pending steer() runs as the next turn', async () => {
    let agentRef: { steer(text: string): string } | undefined;
    const { agent, notifications, expectInvariants } = createTestAgent({
      script: [{ text: 'a' }, { text: 'b' }, { text: 'next turn' }],
      plugins: [
        continueInTurnOne(true, (_seams, step) => {
          if (step === 2) agentRef?.steer('look at this');
        }),
      ],
      options: { maxStepsPerTurn: 2 },
    });
    agentRef = agent;
    agent.followup('go');
    await agent.whenIdle();
    expect(agent.status).toBe('idle');
    await agent.dispose();
    const events = agent.log.events;
    const ends = events
      .filter((e) => e.type === 'turn/end')
      .map((e) => (e.data as { reason: unknown }).reason);
    expect(ends).toEqual([{ kind: 'max-steps', steps: 2 }, { kind: 'completed' }]);
    const prompts = events.filter((e) => e.type === 'user/message').map((e) => JSON.stringify(e.data));
    expect(prompts).toHaveLength(2);
    expect(prompts[1]).toContain('look at this');
    // The reason of step 1 became the steering of step 2; the one of step 2 went nowhere.
    const steering = events.filter((e) => e.type === 'steering/message');
    expect(steering).toHaveLength(1);
    expect(JSON.stringify(events)).not.toMatch(/keep going[\s\S]*keep going/);
    // The reason's ledger entry is discarded; the steer is re-queued, never discarded.
    const discarded = notifications.of('agent/inbox/discard').flatMap((d) => d.items.map((i) => i.id));
    expect(discarded).toEqual([`${agent.id}:t1:s2:continue`]);
    expectInvariants();
  });

  it('M03 a stop from agent/turn-stop wins over the cap, and a sticky max-tokens wins over max-steps', async () => {
    const stopped = createTestAgent({
      script: [{ text: 'a' }, { text: 'b' }],
      plugins: [
        continueInTurnOne(false),
        {
          name: 'stopper',
          apply: (s) =>
            s.on('agent/turn-stop', (ctx) =>
              ctx.turn === 1 ? { action: 'stop', reason: 'enough' } : undefined,
            ),
        },
      ],
      options: { maxStepsPerTurn: 1 },
    });
    stopped.agent.followup('go');
    await runToIdle(stopped.agent);
    expect(stopped.agent.log.events.at(-1)!.data).toMatchObject({
      reason: { kind: 'completed', stoppedBy: 'stopper.agent/turn-stop#1', stopReason: 'enough' },
    });
    stopped.expectInvariants();

    const truncated = createTestAgent({
      script: [{ text: 'cut', finish: 'max-tokens' }, { text: 'b' }],
      plugins: [continueInTurnOne(false)],
      options: { maxStepsPerTurn: 2 },
    });
    truncated.agent.followup('go');
    await runToIdle(truncated.agent);
    expect(truncated.agent.log.events.at(-1)!.data).toEqual({ turn: 1, reason: { kind: 'max-tokens' } });
    truncated.expectInvariants();
  });

  it('M03 the cap defaults to 100 and must be a positive integer', async () => {
    const { agent, model, expectInvariants } = createTestAgent({
      script: Array.from({ length: 101 }, () => ({ text: 'again' })),
      plugins: [continueInTurnOne(false)],
    });
    agent.followup('go');
    await runToIdle(agent);
    expect(model.requests).toHaveLength(100);
    expect(agent.log.events.at(-1)!.data).toEqual({ turn: 1, reason: { kind: 'max-steps', steps: 100 } });
    expectInvariants();
    expect(() =>
      createAgent({
        seams: createSeams(),
        tools: createToolRegistry(),
        model: scriptedModel([]),
        maxStepsPerTurn: 0,
      }),
    ).toThrow(
      'Expected the `maxStepsPerTurn` option of createAgent() to be a positive integer, got `0` (number)',
    );
  });
});

/** Deltas and session events of `seams` as one ordered list of short labels. */
function recordStream(seams: Seams) {
  const order: (
    | { kind: 'delta'; step: number; delta: StreamedDelta }
    | { kind: 'event'; event: LogEvent }
  )[] = [];
  seams.on('model/delta', ({ step, delta }) => void order.push({ kind: 'delta', step, delta }));
  seams.on('session/event', ({ event }) => void order.push({ kind: 'event', event }));
  return order;
}

/** Per step: the text, reasoning and call arguments its deltas join to, checked to precede its answer. */
function joinedDeltasBeforeAnswers(order: ReturnType<typeof recordStream>) {
  type Slot = { text: string; reasoning: string; args: string[]; answer?: unknown };
  const perStep: Slot[] = [];
  const slotOf = (step: number): Slot => {
    perStep[step - 1] ??= { text: '', reasoning: '', args: [] };
    return perStep[step - 1]!;
  };
  for (const entry of order) {
    if (entry.kind === 'delta') {
      const slot = slotOf(entry.step);
      expect(slot.answer, `a delta of step ${entry.step} after its assistant/message`).toBeUndefined();
      const { delta } = entry;
      if (delta.kind === 'text') slot.text += delta.text;
      if (delta.kind === 'reasoning') slot.reasoning += delta.text;
      if (delta.kind === 'tool-call')
        slot.args[delta.index] = (slot.args[delta.index] ?? '') + delta.argumentsDelta;
    } else if (entry.event.type === 'assistant/message') {
      const { step, content } = entry.event.data as { step: number; content: unknown };
      slotOf(step).answer = content;
    }
  }
  return perStep;
}

describe('M04 model/delta', () => {
  it('M04 scripted: deltas arrive in order before each assistant/message and join to it', async () => {
    const { agent, seams, notifications, expectInvariants } = createTestAgent({
      tools: [echo],
      script: [
        { text: 'Let me call it.', reasoning: 'I should echo', ...callEcho('c1') },
        { text: 'It said c1.', chunks: ['It', ' said', ' c1.'] },
      ],
    });
    const order = recordStream(seams);
    agent.followup('go');
    await runToIdle(agent);
    expect(joinedDeltasBeforeAnswers(order)).toEqual([
      {
        text: 'Let me call it.',
        reasoning: 'I should echo',
        args: ['{"text":"c1"}'],
        answer: [
          { type: 'reasoning', text: 'I should echo' },
          { type: 'text', text: 'Let me call it.' },
          { type: 'tool-call', id: 'c1', name: 'echo', arguments: '{"text":"c1"}' },
        ],
      },
      { text: 'It said c1.', reasoning: '', args: [], answer: [{ type: 'text', text: 'It said c1.' }] },
    ]);
    const chunks = notifications.of('model/delta').filter((n) => n.step === 2);
    expect(chunks.map((n) => n.delta)).toEqual([
      { kind: 'text', text: 'It' },
      { kind: 'text', text: ' said' },
      { kind: 'text', text: ' c1.' },
    ]);
    expect(chunks.every((n) => n.agentId === agent.id && n.turn === 1)).toBe(true);
    // Observe-only and never logged.
    expect(agent.log.events.some((e) => e.type.startsWith('model/'))).toBe(false);
    expectInvariants();
  });

  it('M04 OpenAI-compatible: text, reasoning and tool-call argument deltas precede each answer and join to it', async () => {
    const server = await serveModel([
      {
        reasoning: ['Think', 'ing'],
        chunks: ['Call', 'ing'],
        toolCalls: [{ id: 'call_1', name: 'echo', arguments: '{"text":"hi"}' }],
      },
      { chunks: ['Do', 'ne', '.'] },
    ]);
    const seams = createSeams();
    const order = recordStream(seams);
    const agent = serverAgent(server.baseURL, { seams });
    agent.followup('go');
    await runToIdle(agent);
    expect(joinedDeltasBeforeAnswers(order)).toEqual([
      {
        text: 'Calling',
        reasoning: 'Thinking',
        args: ['{"text":"hi"}'],
        answer: [
          { type: 'reasoning', text: 'Thinking' },
          { type: 'text', text: 'Calling' },
          { type: 'tool-call', id: 'call_1', name: 'echo', arguments: '{"text":"hi"}' },
        ],
      },
      { text: 'Done.', reasoning: '', args: [], answer: [{ type: 'text', text: 'Done.' }] },
    ]);
    expectSound(agent.log.events);
  });

  it('M04 none after a cancel: late deltas of an adapter that ignores the signal are dropped, one discard is sent', async () => {
    const model: ModelAdapter = {
      async request({ onDelta, signal }) {
        onDelta?.({ kind: 'text', text: 'Hel' });
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        onDelta?.({ kind: 'text', text: 'lo (late)' });
        await new Promise((resolve) => setTimeout(resolve, 5));
        onDelta?.({ kind: 'text', text: ' later' });
        throw new ModelRequestError({ message: 'aborted', code: 'ABORTED' });
      },
    };
    const seams = createSeams();
    const deltas: StreamedDelta[] = [];
    seams.on('model/delta', ({ delta }) => {
      deltas.push(delta);
      if (deltas.length === 1) agent.cancel();
    });
    const agent = createAgent({ seams, tools: createToolRegistry(), model });
    agent.followup('go');
    await runToIdle(agent);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(deltas).toEqual([{ kind: 'text', text: 'Hel' }, { kind: 'discard' }]);
    expect(agent.log.events.at(-1)!.data).toMatchObject({ reason: { kind: 'aborted' } });
    expectSound(agent.log.events);
  });

  it('M04 a step that fails after streaming emits discard once, then the retried step streams afresh', async () => {
    let request = 0;
    const model: ModelAdapter = {
      async request({ onDelta }) {
        request++;
        if (request === 1) {
          onDelta?.({ kind: 'text', text: 'half an ans' });
          throw new ModelRequestError({ message: 'stream dropped', code: 'STREAM_INTERRUPTED' });
        }
        onDelta?.({ kind: 'text', text: 'whole' });
        return { content: [{ type: 'text', text: 'whole' }], finish: 'stop' };
      },
    };
    const seams = createSeams();
    const deltas: [number, StreamedDelta][] = [];
    seams.on('model/delta', ({ step, delta }) => void deltas.push([step, delta]));
    seams.on('agent/request-error', () => ({ action: 'retry' }));
    const agent = createAgent({ seams, tools: createToolRegistry(), model });
    agent.followup('go');
    await runToIdle(agent);
    expect(deltas).toEqual([
      [1, { kind: 'text', text: 'half an ans' }],
      [1, { kind: 'discard' }],
      [2, { kind: 'text', text: 'whole' }],
    ]);
    expectSound(agent.log.events);
  });
});

describe('M05 agent.stream()', () => {
  it('M05 sees deltas and session events of two turns in notification order and ends when idle', async () => {
    const { agent, notifications, expectInvariants } = createTestAgent({
      script: [{ text: 'first answer' }, { text: 'second answer' }],
    });
    const items: AgentStreamItem[] = [];
    const stream = agent.stream();
    agent.followup('one');
    agent.followup('two');
    for await (const item of stream) items.push(item);
    expect(agent.status).toBe('idle');
    const expected = notifications.events
      .filter((n) => ['model/delta', 'session/event', 'agent/status'].includes(n.seam))
      .map((n) =>
        n.seam === 'session/event'
          ? { type: 'session/event', event: (n.payload as { event: LogEvent }).event }
          : n.seam === 'agent/status'
            ? { type: 'agent/status', status: (n.payload as { status: string }).status }
            : { type: 'model/delta', ...(n.payload as object), agentId: undefined },
      );
    expect(items.map((i) => ({ ...i, ...(i.type === 'model/delta' ? { agentId: undefined } : {}) }))).toEqual(
      expected,
    );
    expect(items.at(-1)).toEqual({ type: 'agent/status', status: 'idle' });
    const seen = items.flatMap((i) => (i.type === 'session/event' ? [i.event.seq] : []));
    expect(seen).toEqual(agent.log.events.map((e) => e.seq));
    expect(items.filter((i) => i.type === 'model/delta')).toHaveLength(4);
    await agent.dispose();
    expectInvariants();
  });

  it('M05 a stream opened after followup() still starts at the open turn', async () => {
    const { agent, expectInvariants } = createTestAgent({ script: [{ text: 'hi there' }] });
    agent.followup('one');
    const types: string[] = [];
    for await (const item of agent.stream())
      types.push(item.type === 'session/event' ? item.event.type : item.type);
    expect(types[0]).toBe('turn/start');
    expect(types.at(-1)).toBe('agent/status');
    expect(types).toContain('model/delta');
    await agent.dispose();
    expectInvariants();
  });

  it('M05 a consumer that never reads holds at most maxBufferedDeltas deltas; the rest is reported dropped once', async () => {
    const words = Array.from({ length: 50 }, (_, i) => `w${i}`);
    const { agent, expectInvariants } = createTestAgent({ script: [{ text: words.join(' ') }] });
    const stream = agent.stream({ maxBufferedDeltas: 5 });
    agent.followup('go');
    await agent.whenIdle();
    const items: AgentStreamItem[] = [];
    for await (const item of stream) items.push(item);
    expect(items.filter((i) => i.type === 'model/delta')).toHaveLength(5);
    expect(items.filter((i) => i.type === 'dropped')).toEqual([{ type: 'dropped', count: 45 }]);
    // Log events are never dropped: they are read from the log itself.
    expect(items.filter((i) => i.type === 'session/event')).toHaveLength(agent.log.events.length);
    await agent.dispose();
    expectInvariants();
  });

  it('M05 break unsubscribes the stream', async () => {
    const seams = createSeams();
    const agent = createAgent({
      seams,
      tools: createToolRegistry(),
      model: scriptedModel([{ text: 'a b c' }]),
    });
    const stream = agent.stream();
    expect(seams.snapshot(agent.id).has('model/delta')).toBe(true);
    agent.followup('go');
    for await (const item of stream) if (item.type === 'model/delta') break;
    expect(seams.snapshot(agent.id).has('model/delta')).toBe(false);
    expect(seams.snapshot(agent.id).has('agent/status')).toBe(false);
    await runToIdle(agent);
    expectSound(agent.log.events);
  });

  it('M05 ends at once for a disposed agent', async () => {
    const agent = createAgent({
      seams: createSeams(),
      tools: createToolRegistry(),
      model: scriptedModel([]),
    });
    await agent.dispose();
    const items: AgentStreamItem[] = [];
    for await (const item of agent.stream()) items.push(item);
    expect(items).toEqual([]);
  });
});

describe('M06 usage', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('M06 turn/end.usage sums the steps’ usage; agent.usage sums the session and survives a reopen', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'seamchart-m06-'));
    dirs.push(dir);
    const file = path.join(dir, 'session.jsonl');
    const tools = createToolRegistry();
    tools.register(echo);
    const agent = createAgent({
      seams: createSeams(),
      tools,
      store: await createJsonlStore(file),
      model: scriptedModel([
        { ...callEcho('c1'), usage: { inputTokens: 100, outputTokens: 10, cachedInputTokens: 60 } },
        { text: 'done', usage: { inputTokens: 130, outputTokens: 5, reasoningTokens: 2 } },
        { text: 'again', usage: { inputTokens: 150, outputTokens: 7 } },
      ]),
    });
    expect(agent.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
    agent.followup('one');
    agent.followup('two');
    await runToIdle(agent);
    const ends = agent.log.events
      .filter((e) => e.type === 'turn/end')
      .map((e) => (e.data as { usage?: unknown }).usage);
    expect(ends).toEqual([
      { inputTokens: 230, outputTokens: 15, reasoningTokens: 2, cachedInputTokens: 60 },
      { inputTokens: 150, outputTokens: 7 },
    ]);
    const total = { inputTokens: 380, outputTokens: 22, reasoningTokens: 2, cachedInputTokens: 60 };
    expect(agent.usage).toEqual(total);
    expectSound(agent.log.events);

    const reopened = createAgent({
      seams: createSeams(),
      tools,
      store: await openJsonlStore(file),
      model: scriptedModel([{ text: 'three', usage: { inputTokens: 1, outputTokens: 1 } }]),
    });
    expect(reopened.usage).toEqual(total);
    reopened.followup('three');
    await runToIdle(reopened);
    expect(reopened.usage).toEqual({ ...total, inputTokens: 381, outputTokens: 23 });
    expectSound(reopened.log.events);
  });

  it('M06 an interrupted turn counts too, and the OpenAI-compatible usage is summed', async () => {
    const server = await serveModel([
      {
        toolCalls: [{ id: 'c1', name: 'echo', arguments: '{"text":"x"}' }],
        usage: { prompt_tokens: 40, completion_tokens: 4 },
      },
      { chunks: ['ok'], usage: { prompt_tokens: 50, completion_tokens: 2 } },
    ]);
    const agent = serverAgent(server.baseURL);
    agent.followup('go');
    await runToIdle(agent);
    expect(agent.log.events.at(-1)!.data).toMatchObject({ usage: { inputTokens: 90, outputTokens: 6 } });
    expect(agent.usage).toEqual({ inputTokens: 90, outputTokens: 6 });
    expectSound(agent.log.events);

    const seams = createSeams();
    const cancelled = createAgent({
      seams,
      tools: createToolRegistry(),
      model: scriptedModel([{ text: 'first', usage: { inputTokens: 9, outputTokens: 1 } }, { hang: true }]),
    });
    seams.on('agent/turn-continuation', () => ({ action: 'continue' }));
    seams.on('agent/pre-step', ({ step }) => {
      if (step === 2) cancelled.cancel();
    });
    cancelled.followup('go');
    await runToIdle(cancelled);
    expect(cancelled.log.events.at(-1)!.data).toEqual({
      turn: 1,
      reason: { kind: 'aborted' },
      usage: { inputTokens: 9, outputTokens: 1 },
    });
    expect(cancelled.usage).toEqual({ inputTokens: 9, outputTokens: 1 });
    expectSound(cancelled.log.events);
  });
});
