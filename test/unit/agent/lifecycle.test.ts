import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createAgent } from '../../../machines/agent/createAgent.js';
import { resolveAgentOptions } from '../../../machines/agent/options.js';
import { createToolRegistry } from '../../../machines/toolCall/createToolRegistry.js';
import { scriptedModel } from '../../../model/index.js';
import { createSeams } from '../../../seams/index.js';
import { coreTurnEvents, createJsonlStore, memoryStore, openJsonlStore } from '../../../session/index.js';
import { defineTool } from '../../../tools/index.js';
import { createTestAgent, reasons, type TestAgent, textOf } from './helpers.js';

let current: TestAgent | undefined;
const dirs: string[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await current?.agent.dispose();
  current = undefined;
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('agent lifecycle', () => {
  it('P01 a JSONL session reopened by another agent resumes: session-start says resume, turn numbers continue, history is sent', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'seamchart-agent-'));
    dirs.push(dir);
    const path = join(dir, 'session.jsonl');
    const first = createTestAgent({
      script: [{ text: 'first answer' }],
      agent: { store: await createJsonlStore(path) },
    });
    first.agent.followup('first question');
    await first.agent.whenIdle();
    first.expectInvariants();
    await first.agent.dispose();

    const sources: string[] = [];
    current = createTestAgent({
      script: [{ text: 'second answer' }],
      agent: { store: await openJsonlStore(path) },
      register: (seams) => seams.on('agent/session-start', (c) => void sources.push(c.source)),
    });
    expect(current.agent.id).toBe(first.agent.id);
    current.agent.followup('second question');
    await current.agent.whenIdle();
    expect(sources).toEqual(['resume']);
    const turns = current.agent.log.events
      .filter((e) => e.type === 'turn/start')
      .map((e) => (e.data as { turn: number }).turn);
    expect(turns).toEqual([1, 2]);
    expect(current.model.requests[0]?.messages.map((m) => textOf(m.content as never))).toEqual([
      'first question',
      'first answer',
      'second question',
    ]);
    current.expectInvariants();
  });

  it('refuses an id that differs from the store session id', () => {
    const options = { seams: createSeams(), tools: createToolRegistry(), model: scriptedModel([]) };
    expect(() =>
      createAgent({ ...options, id: 'b', store: memoryStore({ id: 'a' }) }),
    ).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the \`id\` option of createAgent() to match the store's session id "a", got "b"; omit \`id\` when resuming a stored session]`,
    );
  });

  it('resolveAgentOptions fills the documented defaults and names a bad option', () => {
    const base = { seams: createSeams(), tools: createToolRegistry(), model: scriptedModel([]) };
    expect(resolveAgentOptions(base)).toMatchObject({
      maxParallelToolCalls: 10,
      cancelGraceMs: 5000,
      sessionStartTimeoutMs: 60_000,
      maxRequestRetries: 3,
      cwd: process.cwd(),
    });
    expect(() =>
      resolveAgentOptions({ ...base, maxParallelToolCalls: 0 }),
    ).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the \`maxParallelToolCalls\` option of createAgent() to be a positive integer, got \`0\` (number)]`,
    );
    expect(() => resolveAgentOptions({ ...base, cancelGraceMs: -1 })).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the \`cancelGraceMs\` option of createAgent() to be a non-negative integer, got \`-1\` (number)]`,
    );
    expect(() => resolveAgentOptions({ ...base, model: {} })).toThrow(
      /`model` option .* request\(\) method, got `\{\}` \(object\)/,
    );
  });

  it('a session-start listener that never settles delays the first turn by sessionStartTimeoutMs, then is reported', async () => {
    vi.useFakeTimers();
    current = createTestAgent({
      script: [{ text: 'ok' }],
      agent: { sessionStartTimeoutMs: 500 },
      register: (seams) => seams.on('agent/session-start', () => new Promise<void>(() => {})),
    });
    current.agent.followup('hello');
    await vi.advanceTimersByTimeAsync(490);
    expect(coreTurnEvents(current.agent.log.events)).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(20);
    await current.agent.whenIdle();
    expect(reasons(current.agent.log.events)).toEqual([{ kind: 'completed' }]);
    expect(current.notifications.of('agent/error')).toEqual([
      expect.objectContaining({
        origin: 'agent/session-start',
        error: expect.objectContaining({ code: 'SESSION_START_TIMEOUT' }),
      }),
    ]);
    current.expectInvariants();
  });

  it('every append emits session/event, and status never repeats', async () => {
    current = createTestAgent({ script: [{ text: 'a' }, { text: 'b' }] });
    current.agent.followup('one');
    await current.agent.whenIdle();
    current.agent.followup('two');
    await current.agent.whenIdle();
    await current.agent.dispose();
    expect(current.notifications.of('session/event').map((p) => (p.event as { seq: number }).seq)).toEqual(
      current.agent.log.events.map((e) => e.seq),
    );
    expect(current.notifications.of('agent/status').map((p) => p.status)).toEqual([
      'running',
      'idle',
      'running',
      'idle',
      'disposed',
    ]);
    expect(current.agent.status).toBe('disposed');
    // For a claimed message: status(running), then its dequeue, then turn/start.
    const order = current.notifications.events
      .map((n) =>
        n.seam === 'session/event' ? `event:${(n.payload.event as { type: string }).type}` : n.seam,
      )
      .filter((row) => ['agent/status', 'agent/inbox/dequeue', 'event:turn/start'].includes(row));
    expect(order.slice(0, 3)).toEqual(['agent/status', 'agent/inbox/dequeue', 'event:turn/start']);
    current.expectInvariants();
  });

  it('a native plugin using session-start, prompt-submit, pre-execute and post-execute blocks a destructive prompt; disposing it removes all four', async () => {
    const tools = createToolRegistry();
    tools.register(
      defineTool({ name: 'ls', description: 'list', parameters: z.object({}), execute: () => 'a b' }),
    );
    const seams = createSeams();
    const trace: string[] = [];
    const dispose = seams.use({
      name: 'guardian',
      apply(s) {
        s.on('agent/session-start', function greet(c) {
          trace.push(`start:${c.source}`);
        });
        s.on('agent/prompt-submit', function screen(c, next) {
          trace.push('prompt');
          return textOf(c.content as never).includes('rm -rf')
            ? { kind: 'block', reason: 'destructive' }
            : next();
        });
        s.on('tools/pre-execute', function review(exec, next) {
          trace.push(`pre:${exec.name}`);
          return next();
        });
        s.on('tools/post-execute', async function annotate(c, next) {
          trace.push(`post:${c.exec.callId}`);
          await next();
          return {
            kind: 'accept',
            additionalContexts: [
              { content: [{ type: 'text', text: 'listed' }], source: { kind: 'plugin', plugin: 'guardian' } },
            ],
          };
        });
      },
    });
    current = createTestAgent({
      seams,
      tools,
      script: [{ toolCalls: [{ id: 'c1', name: 'ls', arguments: {} }] }, { text: 'done' }],
    });
    current.agent.followup('rm -rf /');
    current.agent.followup('list files');
    await current.agent.whenIdle();
    expect(reasons(current.agent.log.events)).toEqual([
      { kind: 'rejected', reason: 'destructive' },
      { kind: 'completed' },
    ]);
    expect(trace).toEqual(['start:startup', 'prompt', 'prompt', 'pre:ls', 'post:c1']);
    expect(current.eventData('context/message').map((d) => textOf(d.content as never))).toEqual(['listed']);
    expect(current.notifications.of('seam/decided')).toContainEqual(
      expect.objectContaining({ seam: 'agent/prompt-submit', decidedBy: 'guardian.screen' }),
    );
    dispose();
    for (const seam of [
      'agent/session-start',
      'agent/prompt-submit',
      'tools/pre-execute',
      'tools/post-execute',
    ] as const) {
      expect(seams.listeners(seam)).toEqual([]);
    }
    current.expectInvariants();
  });
});
