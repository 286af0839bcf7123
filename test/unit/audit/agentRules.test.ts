// Acceptance audit: black-box probes of the agent/turn rules of the spec, through the public entry only.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  type Agent,
  checkInvariants,
  checkLedger,
  coreTurnEvents,
  createAgent,
  createSeams,
  createToolRegistry,
  defineLogEvent,
  defineTool,
  notifySeamNames,
  type Seams,
  scriptedModel,
} from '../../../index.js';

interface Note {
  readonly seam: string;
  readonly payload: Record<string, unknown>;
}

const agents: Agent[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const agent of agents.splice(0)) await agent.dispose();
});

function setup(
  script: Parameters<typeof scriptedModel>[0],
  options: {
    register?: (seams: Seams) => void;
    agent?: Partial<Parameters<typeof createAgent>[0]>;
    tools?: ReturnType<typeof defineTool>[];
  } = {},
) {
  const logger = {
    lines: [] as string[],
    error: (m: string) => void logger.lines.push(m),
    warn: (m: string) => void logger.lines.push(m),
  };
  const seams = createSeams({ logger });
  const notes: Note[] = [];
  for (const seam of notifySeamNames) {
    seams.on(seam, ((payload: Record<string, unknown>) => void notes.push({ seam, payload })) as never);
  }
  options.register?.(seams);
  const model = scriptedModel(script);
  const echo = defineTool({
    name: 'echo',
    description: 'echo',
    parameters: z.object({ text: z.string() }),
    execute: ({ text }) => text,
  });
  const tools = createToolRegistry();
  tools.register(echo);
  for (const tool of options.tools ?? []) tools.register(tool);
  const agent = createAgent({ seams, tools, model, logger, ...options.agent });
  agents.push(agent);
  const types = () => coreTurnEvents(agent.log.events).map((e) => e.type);
  const data = (type: string) =>
    agent.log.events.filter((e) => e.type === type).map((e) => e.data as Record<string, unknown>);
  const seen = (seam: string) => notes.filter((n) => n.seam === seam).map((n) => n.payload);
  const check = (ledger = true) => {
    expect(checkInvariants(agent.log.events)).toEqual([]);
    if (ledger)
      expect(checkLedger(notes.filter((n) => n.seam.startsWith('agent/inbox/')) as never)).toEqual([]);
  };
  return { agent, seams, model, notes, logger, types, data, seen, check };
}

const text = (content: unknown): string =>
  Array.isArray(content)
    ? (content as { type: string; text?: string }[])
        .filter((b) => b.type === 'text')
        .map((b) => b.text)
        .join('')
    : '';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('agent rules audit', () => {
  it('agent/status: no event for the initial idle, never two equal in a row', async () => {
    const t = setup([{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
    await t.agent.whenIdle();
    expect(t.seen('agent/status')).toEqual([]);
    t.agent.followup('one');
    t.agent.followup('two');
    await t.agent.whenIdle();
    t.agent.followup('three');
    await t.agent.whenIdle();
    t.agent.cancel();
    await t.agent.dispose();
    const statuses = t.seen('agent/status').map((p) => p.status);
    expect(statuses).toEqual(['running', 'idle', 'running', 'idle', 'disposed']);
    for (const p of t.seen('agent/status')) expect(p.agentId).toBe(t.agent.id);
    t.check();
  });

  it('notification order: status(running) → inbox/dequeue → turn/start', async () => {
    const t = setup([{ text: 'a' }]);
    t.agent.followup('one');
    await t.agent.whenIdle();
    const order = t.notes
      .filter(
        (n) =>
          n.seam === 'agent/status' ||
          n.seam === 'agent/inbox/dequeue' ||
          (n.seam === 'session/event' && (n.payload.event as { type: string }).type === 'turn/start'),
      )
      .map((n) => (n.seam === 'session/event' ? 'turn/start' : n.seam));
    expect(order.slice(0, 3)).toEqual(['agent/status', 'agent/inbox/dequeue', 'turn/start']);
    t.check();
  });

  it('seam/decided after every waterfall, with turn', async () => {
    const t = setup(
      [{ toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'x' } }] }, { error: { message: 'boom' } }],
      {
        register: (seams) => {
          seams.on('agent/prompt-submit', (_c, next) => next());
          seams.on('agent/turn-continuation', (_c, next) => next());
          seams.on('agent/request-error', (_c, next) => next());
          seams.on('tools/pre-execute', (_c, next) => next());
        },
      },
    );
    t.agent.followup('go');
    await t.agent.whenIdle();
    const decided = t.seen('seam/decided');
    expect(decided.map((d) => d.seam)).toEqual([
      'agent/prompt-submit',
      'tools/pre-execute',
      'tools/post-execute',
      'agent/turn-continuation',
      'agent/request-error',
    ]);
    for (const d of decided) expect(d.turn).toBe(1);
    expect(decided[1]?.callId).toBe('c1');
    t.check();
  });

  it('seam/decided also for waterfalls taken by default (no listener)', async () => {
    const t = setup([{ text: 'a' }]);
    t.agent.followup('go');
    await t.agent.whenIdle();
    // "after every waterfall": a waterfall skipped for lack of listeners still reports its default.
    expect(t.seen('seam/decided')).toMatchObject([
      { seam: 'agent/prompt-submit', decidedBy: 'default', decision: { kind: 'allow' }, turn: 1 },
      { seam: 'agent/turn-continuation', decidedBy: 'default', decision: { action: 'stop' }, turn: 1 },
    ]);
    t.check();
  });

  it('session-start fires exactly once, awaited before the first turn', async () => {
    const sources: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const t = setup([{ text: 'a' }, { text: 'b' }], {
      register: (seams) =>
        seams.on('agent/session-start', async (c) => {
          sources.push(c.source);
          await gate;
          c.agent.inject('policy');
        }),
    });
    t.agent.followup('one');
    await sleep(20);
    expect(t.types()).toEqual([]);
    release();
    await t.agent.whenIdle();
    t.agent.followup('two');
    await t.agent.whenIdle();
    expect(sources).toEqual(['startup']);
    expect(t.data('turn/start').map((d) => (d.trigger as { kind: string }).kind)).toEqual([
      'injection',
      'message',
      'message',
    ]);
    expect(text(t.model.requests[0]?.messages[0]?.content)).toBe('policy');
    t.check();
  });

  it('session-start is bounded by sessionStartTimeoutMs and the late listener is reported', async () => {
    const t = setup([{ text: 'a' }], {
      agent: { sessionStartTimeoutMs: 30 },
      register: (seams) => {
        seams.on('agent/session-start', () => {}, { name: 'quick' });
        seams.on('agent/session-start', () => new Promise<void>(() => {}), { name: 'slow' });
        seams.on('agent/session-start', () => {}, { name: 'after' });
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.data('turn/end').map((d) => (d.reason as { kind: string }).kind)).toEqual(['completed']);
    // "reports the late listener": the report names it.
    expect(t.seen('agent/error')).toMatchObject([
      {
        origin: 'agent/session-start',
        error: { code: 'SESSION_START_TIMEOUT', message: expect.stringContaining('listener "slow"') },
      },
    ]);
    t.check();
  });

  it('a listener added mid-turn takes effect from the next turn', async () => {
    const calls: number[] = [];
    const t = setup([{ delayMs: 20, text: 'a' }, { text: 'b' }], {
      register: (seams) =>
        seams.on(
          'agent/pre-step',
          () => {
            seams.on('agent/post-step', (c) => void calls.push(c.turn));
          },
          { name: 'adder' },
        ),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(calls).toEqual([]);
    t.agent.followup('two');
    await t.agent.whenIdle();
    expect(calls[0]).toBe(2);
    t.check();
  });

  it('steering recorded as steering never fires prompt-submit; a steer while idle does', async () => {
    const prompts: string[] = [];
    const t = setup([{ delayMs: 30, text: 'a' }, { text: 'b' }, { text: 'c' }], {
      register: (seams) =>
        seams.on('agent/prompt-submit', (c, next) => {
          prompts.push(text(c.content));
          return next();
        }),
    });
    t.agent.followup('one');
    await sleep(10);
    t.agent.steer('steer-in-turn');
    await t.agent.whenIdle();
    expect(prompts).toEqual(['one']);
    expect(t.data('steering/message').map((d) => text(d.content))).toEqual(['steer-in-turn']);
    t.agent.steer('steer-idle');
    await t.agent.whenIdle();
    expect(prompts).toEqual(['one', 'steer-idle']);
    expect(t.data('user/message').map((d) => text(d.content))).toEqual(['one', 'steer-idle']);
    t.check();
  });

  // continue{reason} → same-turn steering/message is L09 in test/unit/agent/steering.test.ts.

  it('turn-stop discards pending steering with one discard and records stoppedBy/stopReason', async () => {
    const t = setup([{ text: 'a' }, { text: 'b' }, { text: 'c' }], {
      register: (seams) => {
        seams.on('agent/turn-continuation', (c, next) => {
          if (c.turn > 1) return next();
          c.agent.steer('x');
          c.agent.steer('x2');
          c.agent.followup('y');
          return next();
        });
        seams.on('agent/turn-stop', () => ({ action: 'stop', reason: 'enough' }), { name: 'stopper' });
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    const discards = t.seen('agent/inbox/discard');
    expect(discards.length).toBe(1);
    expect((discards[0]!.items as { steering: boolean }[]).map((i) => i.steering)).toEqual([true, true]);
    const ends = t.data('turn/end');
    expect(ends[0]?.reason).toEqual({ kind: 'completed', stoppedBy: 'stopper', stopReason: 'enough' });
    expect(t.data('user/message').map((d) => text(d.content))).toEqual(['one', 'y']);
    expect(t.data('steering/message')).toEqual([]);
    t.check();
  });

  it('max-tokens is sticky and drops tool calls', async () => {
    let ran = 0;
    const t = setup(
      [
        {
          text: 'partial',
          finish: 'max-tokens',
          toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'x' } }],
        } as never,
        { text: 'b' },
      ],
      {
        register: (seams) => {
          seams.on('tools/pre-execute', (_c, next) => {
            ran++;
            return next();
          });
          seams.on('agent/turn-continuation', (c) =>
            c.step === 1 ? { action: 'continue' } : { action: 'stop' },
          );
        },
      },
    );
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(ran).toBe(0);
    expect(t.types()).not.toContain('tool/call');
    const am = t.data('assistant/message');
    expect((am[0]!.content as { type: string }[]).some((b) => b.type === 'tool-call')).toBe(false);
    expect(t.data('turn/end')[0]?.reason).toEqual({ kind: 'max-tokens' });
    t.check();
  });

  it('request-error retry is bounded by maxRequestRetries', async () => {
    const t = setup(
      [
        { error: { message: 'o1' } },
        { error: { message: 'o2' } },
        { error: { message: 'o3' } },
        { text: 'never' },
      ],
      {
        agent: { maxRequestRetries: 2 },
        register: (seams) => seams.on('agent/request-error', () => ({ action: 'retry' })),
      },
    );
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.model.requests.length).toBe(3);
    const reason = t.data('turn/end')[0]?.reason as { kind: string; step: number; message: string };
    expect(reason.kind).toBe('error');
    expect(reason.step).toBe(3);
    expect(reason.message).toBe('o3');
    t.check();
  });

  it('request-error listener that throws counts as fail and is reported', async () => {
    const t = setup([{ error: { message: 'o1', code: 'X' } }, { text: 'never' }], {
      register: (seams) =>
        seams.on('agent/request-error', () => {
          throw new Error('bad listener');
        }),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.data('turn/end')[0]?.reason).toMatchObject({ kind: 'error', step: 1, message: 'o1', code: 'X' });
    expect(t.seen('agent/error').length).toBeGreaterThanOrEqual(1);
    t.check();
  });

  it('cancel while idle with nothing pending emits nothing', async () => {
    const t = setup([{ text: 'a' }]);
    await t.agent.whenIdle();
    const before = t.notes.length;
    t.agent.cancel();
    await sleep(5);
    expect(t.notes.slice(before)).toEqual([]);
    t.agent.queue('q');
    t.agent.cancel();
    await sleep(5);
    expect(t.seen('agent/cancel-requested').length).toBe(1);
    expect(t.seen('agent/inbox/discard').length).toBe(1);
    t.check();
  });

  it('cancel keepInbox keeps queued messages, which run as later turns', async () => {
    const t = setup([{ hang: true }, { text: 'b' }, { text: 'c' }, { text: 'd' }]);
    t.agent.followup('one');
    t.agent.followup('two');
    t.agent.queue('three');
    await sleep(10);
    t.agent.cancel(undefined, { keepInbox: true });
    await t.agent.whenIdle();
    expect(t.data('turn/end').map((d) => (d.reason as { kind: string }).kind)).toEqual([
      'aborted',
      'completed',
    ]);
    // 'three' was queued without waking: it stays queued until a waking item arrives.
    t.agent.followup('four');
    await t.agent.whenIdle();
    expect(t.data('user/message').map((d) => text(d.content))).toEqual(['one', 'two', 'three', 'four']);
    expect(t.seen('agent/inbox/discard')).toEqual([]);
    expect(t.seen('agent/cancel-requested').length).toBe(1);
    t.check();
  });

  it('dispose is idempotent and delivery afterwards throws a clear error', async () => {
    const t = setup([{ hang: true }]);
    t.agent.followup('one');
    t.agent.queue('two');
    await sleep(10);
    const a = t.agent.dispose();
    const b = t.agent.dispose();
    expect(a).toBe(b);
    await a;
    await t.agent.dispose();
    expect(t.data('turn/end')[0]?.reason).toEqual({ kind: 'disposed' });
    expect(t.seen('agent/inbox/discard').length).toBe(1);
    expect(t.agent.status).toBe('disposed');
    for (const m of ['followup', 'queue', 'steer', 'inject'] as const) {
      expect(() => t.agent[m]('x')).toThrow(/disposed/);
    }
    expect(() => t.agent.cancel()).not.toThrow();
    expect(t.seen('agent/status').map((s) => s.status)).toEqual(['running', 'disposed']);
    t.check();
  });

  it('dispose while idle emits status disposed once and no discard', async () => {
    const t = setup([]);
    await t.agent.dispose();
    expect(t.seen('agent/status').map((s) => s.status)).toEqual(['disposed']);
    expect(t.seen('agent/inbox/discard')).toEqual([]);
    t.check();
  });

  it('whenIdle waits for queued waking items and resolves when only non-waking items are queued', async () => {
    const t = setup([{ delayMs: 10, text: 'a' }, { text: 'b' }]);
    t.agent.queue('q');
    await t.agent.whenIdle();
    expect(t.types()).toEqual([]);
    t.agent.followup('f');
    await t.agent.whenIdle();
    expect(t.data('turn/end').length).toBe(2);
    expect(t.agent.status).toBe('idle');
    t.check();
  });

  it('inject() default source is { kind: plugin, plugin: "" }', async () => {
    const t = setup([]);
    await t.agent.whenIdle();
    t.agent.inject('ctx');
    await sleep(5);
    expect(t.data('context/message')[0]?.source).toEqual({ kind: 'plugin', plugin: '' });
    expect(t.data('turn/start')[0]?.trigger).toEqual({
      kind: 'injection',
      source: { kind: 'plugin', plugin: '' },
    });
    expect(t.seen('agent/inbox/enqueue')).toEqual([]);
    t.check();
  });

  it('agent.log.append of a plugin type works while a turn is open and is refused outside', async () => {
    const type = `audit/probe-${Math.random().toString(36).slice(2)}`;
    defineLogEvent(type, z.object({ n: z.number() }));
    const t = setup([{ text: 'a' }], {
      register: (seams) => seams.on('agent/pre-step', (c) => void c.agent.log.append(type, { n: c.step })),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.data(type)).toEqual([{ n: 1 }]);
    expect(() => t.agent.log.append(type, { n: 9 })).toThrow();
    expect(() => t.agent.log.append('user/message', { content: [], source: { kind: 'user' } })).toThrow();
    t.check();
  });

  it('every delivery returns its message id, matching enqueue and dequeue', async () => {
    const t = setup([{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
    const ids = [t.agent.queue('q'), t.agent.followup('f'), t.agent.steer('s')];
    expect(new Set(ids).size).toBe(3);
    await t.agent.whenIdle();
    expect(t.seen('agent/inbox/enqueue').map((e) => e.id)).toEqual(ids);
    // q is claimed by the followup's wake-up; the steer lands in that open turn as steering; f is turn 2.
    expect(t.seen('agent/inbox/dequeue')).toMatchObject([
      { id: ids[0], steering: false },
      { id: ids[2], steering: true },
      { id: ids[1], steering: false },
    ]);
    expect(t.data('steering/message').map((d) => text(d.content))).toEqual(['s']);
    t.check();
  });

  it('followup with contexts/meta: meta on user/message, contexts as context/messages, and prompt-submit default carries them', async () => {
    const t = setup([{ text: 'a' }], {
      register: (seams) => seams.on('agent/prompt-submit', (_c, next) => next()),
    });
    t.agent.followup('one', {
      meta: { k: 1 },
      source: { kind: 'plugin', plugin: 'p' },
      contexts: [
        { content: [{ type: 'text', text: 'c1' }], source: { kind: 'plugin', plugin: 'p' }, meta: 'm' },
      ],
    });
    await t.agent.whenIdle();
    expect(t.data('user/message')[0]).toMatchObject({
      meta: { k: 1 },
      source: { kind: 'plugin', plugin: 'p' },
    });
    expect(t.data('context/message')).toEqual([
      { content: [{ type: 'text', text: 'c1' }], source: { kind: 'plugin', plugin: 'p' }, meta: 'm' },
    ]);
    expect(t.types().slice(0, 4)).toEqual(['turn/start', 'user/message', 'context/message', 'step/start']);
    expect(t.data('turn/start')[0]?.trigger).toEqual({
      kind: 'message',
      source: { kind: 'plugin', plugin: 'p' },
      itemId: 'm1',
    });
    t.check();
  });
  it('pre-step throw ends the turn error with that step number and no step/start', async () => {
    const t = setup([{ text: 'a' }, { text: 'b' }], {
      register: (seams) =>
        seams.on('agent/pre-step', (c) => {
          if (c.turn === 1) throw new Error('pre boom');
        }),
    });
    t.agent.followup('one');
    t.agent.followup('two');
    await t.agent.whenIdle();
    expect(t.types().slice(0, 3)).toEqual(['turn/start', 'user/message', 'turn/end']);
    expect(t.data('turn/end')[0]?.reason).toMatchObject({ kind: 'error', step: 1 });
    expect(t.data('turn/end')[1]?.reason).toEqual({ kind: 'completed' });
    expect(t.seen('agent/error').length).toBe(1);
    t.check();
  });

  it('post-step throw ends the turn error after closing the step', async () => {
    const t = setup([{ text: 'a' }], {
      register: (seams) =>
        seams.on('agent/post-step', () => {
          throw new Error('post boom');
        }),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.data('turn/end')[0]?.reason).toMatchObject({ kind: 'error', step: 1 });
    expect(t.seen('agent/error').length).toBe(1);
    t.check();
  });

  it('continuation and turn-stop throws end the turn error; one agent/error each', async () => {
    const t = setup([{ text: 'a' }, { text: 'b' }, { text: 'c' }], {
      register: (seams) => {
        seams.on('agent/turn-continuation', (c, next) => {
          if (c.turn === 1) throw new Error('cont boom');
          return next();
        });
        seams.on('agent/turn-stop', (c) => {
          if (c.turn === 2) throw new Error('stop boom');
          return undefined;
        });
      },
    });
    t.agent.followup('one');
    t.agent.followup('two');
    t.agent.followup('three');
    await t.agent.whenIdle();
    expect(t.data('turn/end').map((d) => (d.reason as { kind: string }).kind)).toEqual([
      'error',
      'error',
      'completed',
    ]);
    expect(t.seen('agent/error').length).toBe(2);
    t.check();
  });

  it('an invalid waterfall decision is a listener failure naming the seam and the listener', async () => {
    const t = setup([{ text: 'a' }], {
      register: (seams) =>
        seams.on('agent/prompt-submit', (() => ({ kind: 'nope' })) as never, { name: 'garbage' }),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    const reason = t.data('turn/end')[0]?.reason as { kind: string; step: number; message: string };
    expect(reason.kind).toBe('error');
    expect(reason.step).toBe(0);
    expect(reason.message).toMatch(/agent\/prompt-submit/);
    expect(reason.message).toMatch(/garbage/);
    expect(t.model.requests.length).toBe(0);
    t.check();
  });

  it('pending steering overrides a continuation stop', async () => {
    let stops = 0;
    const t = setup([{ text: 'a' }, { text: 'b' }], {
      register: (seams) => {
        seams.on('agent/turn-continuation', (c) => {
          if (c.step === 1) c.agent.steer('more');
          return { action: 'stop' };
        });
        seams.on('agent/turn-stop', () => void stops++);
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.data('step/start').length).toBe(2);
    expect(t.data('steering/message').map((d) => text(d.content))).toEqual(['more']);
    // turn-stop runs after every continuation decision (it can only stop).
    expect(stops).toBe(2);
    expect(t.data('turn/end')[0]?.reason).toEqual({ kind: 'completed' });
    t.check();
  });

  it('turn-stop with nothing pending emits no discard and records stoppedBy', async () => {
    const t = setup([{ text: 'a' }], {
      register: (seams) => seams.on('agent/turn-stop', () => ({ action: 'stop' }), { name: 'st' }),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.seen('agent/inbox/discard')).toEqual([]);
    expect(t.data('turn/end')[0]?.reason).toEqual({ kind: 'completed', stoppedBy: 'st' });
    t.check();
  });

  it('turn-stop: the first non-undefined return wins and stops the chain', async () => {
    const order: string[] = [];
    const t = setup([{ text: 'a' }], {
      register: (seams) => {
        seams.on('agent/turn-stop', () => void order.push('a'), { name: 'a' });
        seams.on(
          'agent/turn-stop',
          () => {
            order.push('b');
            return { action: 'stop', reason: 'r' } as const;
          },
          { name: 'b' },
        );
        seams.on('agent/turn-stop', () => void order.push('c'), { name: 'c' });
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(order).toEqual(['a', 'b']);
    expect(t.data('turn/end')[0]?.reason).toEqual({ kind: 'completed', stoppedBy: 'b', stopReason: 'r' });
    t.check();
  });

  it('cancel during a turn: cancel-requested first, then one discard with queued items and pending steering', async () => {
    const t = setup([{ hang: true }, { text: 'b' }]);
    t.agent.followup('one');
    t.agent.followup('two');
    await new Promise((r) => setTimeout(r, 10));
    t.agent.steer('st');
    t.agent.cancel();
    await t.agent.whenIdle();
    const seq = t.notes.filter(
      (n) => n.seam === 'agent/cancel-requested' || n.seam === 'agent/inbox/discard',
    );
    expect(seq.map((n) => n.seam)).toEqual(['agent/cancel-requested', 'agent/inbox/discard']);
    expect(
      (seq[1]!.payload.items as { id: string; steering: boolean }[]).map((i) => i.steering).sort(),
    ).toEqual([false, true]);
    expect(t.data('turn/end').map((d) => d.reason)).toEqual([{ kind: 'aborted' }]);
    expect(t.seen('agent/error')).toEqual([]);
    expect(t.seen('agent/status').map((s) => s.status)).toEqual(['running', 'idle']);
    // the next send runs normally
    t.agent.followup('three');
    await t.agent.whenIdle();
    expect(t.data('turn/end').map((d) => (d.reason as { kind: string }).kind)).toEqual([
      'aborted',
      'completed',
    ]);
    t.check();
  });

  it('cancel during starting drops the queue; session-start still fires once', async () => {
    let release!: () => void;
    const sources: string[] = [];
    const t = setup([{ text: 'a' }], {
      register: (seams) =>
        seams.on('agent/session-start', (c) => {
          sources.push(c.source);
          return new Promise<void>((r) => {
            release = r;
          });
        }),
    });
    t.agent.followup('one');
    t.agent.cancel();
    t.agent.cancel();
    release();
    await t.agent.whenIdle();
    expect(t.seen('agent/cancel-requested').length).toBe(1);
    expect(t.seen('agent/inbox/discard').length).toBe(1);
    expect(t.types()).toEqual([]);
    expect(sources).toEqual(['startup']);
    expect(t.seen('agent/status')).toEqual([]);
    t.check();
  });

  it('whenIdle waits while session-start runs', async () => {
    let release!: () => void;
    const t = setup([], {
      register: (seams) =>
        seams.on(
          'agent/session-start',
          () =>
            new Promise<void>((r) => {
              release = r;
            }),
        ),
    });
    let done = false;
    const idle = t.agent.whenIdle().then(() => {
      done = true;
    });
    await sleep(10);
    expect(done).toBe(false);
    release();
    await idle;
    expect(done).toBe(true);
    t.check();
  });

  it('dispose while session-start hangs finishes and fires session-start once', async () => {
    const sources: string[] = [];
    const t = setup([], {
      register: (seams) =>
        seams.on('agent/session-start', (c) => {
          sources.push(c.source);
          return new Promise<void>(() => {});
        }),
    });
    t.agent.followup('one');
    await sleep(5);
    await t.agent.dispose();
    expect(sources).toEqual(['startup']);
    expect(t.seen('agent/status').map((s) => s.status)).toEqual(['disposed']);
    expect(t.seen('agent/inbox/discard').length).toBe(1);
    expect(() => t.agent.followup('x')).toThrow(/disposed/);
    t.check();
  });

  it('a steer after turn/end (before the turn is done) becomes a queued message that fires prompt-submit', async () => {
    const prompts: string[] = [];
    const t = setup([{ text: 'a' }, { text: 'b' }], {
      register: (seams) => {
        seams.on('agent/prompt-submit', (c, next) => {
          prompts.push(text(c.content));
          return next();
        });
        seams.on('session/event', (e) => {
          if (e.event.type === 'turn/end' && (e.event.data as { turn: number }).turn === 1)
            t.agent.steer('late');
        });
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(prompts).toEqual(['one', 'late']);
    expect(t.data('steering/message')).toEqual([]);
    t.check();
  });

  it('inject while the request is in flight lands after assistant/message, before step/end', async () => {
    const t = setup([{ delayMs: 20, text: 'a' }]);
    t.agent.followup('one');
    await sleep(5);
    t.agent.inject('mid');
    await t.agent.whenIdle();
    expect(t.types()).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'context/message',
      'step/end',
      'turn/end',
    ]);
    t.check();
  });

  it('agent handle in seam ctx is the agent (id, status running)', async () => {
    let seen: { id: string; status: string } | undefined;
    const t = setup([{ text: 'a' }], {
      register: (seams) =>
        seams.on('agent/pre-step', (c) => {
          seen = { id: c.agent.id, status: c.agent.status };
        }),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(seen).toEqual({ id: t.agent.id, status: 'running' });
    t.check();
  });
  it('every notification carries agentId and a frozen payload', async () => {
    const t = setup([{ toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'x' } }] }, { text: 'b' }]);
    t.agent.followup('one');
    t.agent.queue('two');
    await t.agent.whenIdle();
    t.agent.cancel();
    await t.agent.dispose();
    expect(t.notes.length).toBeGreaterThan(10);
    // tools/result is a seam ({ exec, result }), not one of the notifications of the table.
    for (const n of t.notes.filter((note) => note.seam !== 'tools/result')) {
      expect(n.payload.agentId, n.seam).toBe(t.agent.id);
      expect(Object.isFrozen(n.payload), n.seam).toBe(true);
    }
    t.check();
  });

  it('seam contexts are frozen', async () => {
    const frozen: boolean[] = [];
    const t = setup([{ text: 'a' }], {
      register: (seams) => {
        seams.on('agent/prompt-submit', (c, next) => {
          frozen.push(Object.isFrozen(c));
          return next();
        });
        seams.on('agent/pre-step', (c) => void frozen.push(Object.isFrozen(c)));
        seams.on('agent/turn-continuation', (c, next) => {
          frozen.push(Object.isFrozen(c));
          return next();
        });
        seams.on('agent/turn-stop', (c) => void frozen.push(Object.isFrozen(c)));
        seams.on('agent/session-start', (c) => void frozen.push(Object.isFrozen(c)));
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(frozen).toEqual([true, true, true, true, true]);
    t.check();
  });

  it('enqueue payloads: queue does not wake, steer while idle is a waking non-steering message', async () => {
    const t = setup([{ text: 'a' }]);
    await t.agent.whenIdle();
    t.agent.queue('q');
    t.agent.steer('s');
    await t.agent.whenIdle();
    expect(t.seen('agent/inbox/enqueue')).toMatchObject([
      {
        id: 'm1',
        steering: false,
        wakeup: false,
        source: { kind: 'user' },
        content: [{ type: 'text', text: 'q' }],
      },
      {
        id: 'm2',
        steering: false,
        wakeup: true,
        source: { kind: 'user' },
        content: [{ type: 'text', text: 's' }],
      },
    ]);
    t.check();
  });

  it('no agent/status for the initial idle after an awaited session-start', async () => {
    const t = setup([], {
      register: (seams) => seams.on('agent/session-start', async () => {}),
    });
    await t.agent.whenIdle();
    await sleep(5);
    expect(t.seen('agent/status')).toEqual([]);
    t.check();
  });

  it('inject while idle writes an injection turn without a status change', async () => {
    const t = setup([]);
    await t.agent.whenIdle();
    t.agent.inject('c', { meta: { a: 1 }, source: { kind: 'plugin', plugin: 'p' } });
    await t.agent.whenIdle();
    expect(t.types()).toEqual(['turn/start', 'context/message', 'turn/end']);
    expect(t.data('context/message')[0]).toEqual({
      content: [{ type: 'text', text: 'c' }],
      source: { kind: 'plugin', plugin: 'p' },
      meta: { a: 1 },
    });
    expect(t.data('turn/end')[0]?.reason).toEqual({ kind: 'completed' });
    expect(t.seen('agent/status')).toEqual([]);
    t.check();
  });

  it('a throwing notify listener is contained and reported as agent/error; agent/error listener failures go to the logger only', async () => {
    const t = setup([{ text: 'a' }], {
      register: (seams) => {
        seams.on('agent/status', () => {
          throw new Error('status listener boom');
        });
        seams.on('agent/error', () => {
          throw new Error('error listener boom');
        });
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.data('turn/end')[0]?.reason).toEqual({ kind: 'completed' });
    const errors = t.seen('agent/error');
    expect(errors.length).toBe(2); // running, idle
    expect(JSON.stringify(errors[0])).toMatch(/status listener boom/);
    expect(t.logger.lines.some((l) => /error listener boom|agent\/error/.test(l))).toBe(true);
    t.check();
  });

  it('appending from a session/event listener is refused and reported', async () => {
    const type = `audit/reentry-${Math.random().toString(36).slice(2)}`;
    defineLogEvent(type, z.object({}));
    let threw = false;
    const t = setup([{ text: 'a' }], {
      register: (seams) =>
        seams.on('session/event', (e) => {
          if (e.event.type !== 'user/message') return;
          try {
            t.agent.log.append(type, {});
          } catch {
            threw = true;
          }
        }),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(threw).toBe(true);
    expect(t.data(type)).toEqual([]);
    t.check();
  });

  it('delivery with invalid content throws synchronously and enqueues nothing', async () => {
    const t = setup([]);
    expect(() => t.agent.followup(42 as never)).toThrow(TypeError);
    expect(() => t.agent.inject(42 as never)).toThrow(TypeError);
    expect(() => t.agent.followup('x', { source: { kind: 'nobody' } } as never)).toThrow(TypeError);
    expect(() => t.agent.cancel({ kind: 'nope' } as never)).toThrow(TypeError);
    await sleep(5);
    expect(t.seen('agent/inbox/enqueue')).toEqual([]);
    t.check();
  });

  it('cancel with cause parent aborts the turn and reports the cause', async () => {
    const t = setup([{ hang: true }]);
    t.agent.followup('one');
    await sleep(5);
    t.agent.cancel({ kind: 'parent' });
    await t.agent.whenIdle();
    expect(t.seen('agent/cancel-requested')).toMatchObject([{ cause: { kind: 'parent' } }]);
    expect(t.data('turn/end')[0]?.reason).toEqual({ kind: 'aborted' });
    expect(t.types()).toEqual(['turn/start', 'user/message', 'step/start', 'step/end', 'turn/end']);
    t.check();
  });

  it('request-error sees priorFailures 0,1,2 and post-step does not run for a failed step', async () => {
    const prior: number[] = [];
    const post: number[] = [];
    const pre: number[] = [];
    const t = setup([{ error: { message: 'e1' } }, { error: { message: 'e2' } }, { text: 'ok' }], {
      register: (seams) => {
        seams.on('agent/request-error', (c) => {
          prior.push(c.priorFailures);
          return { action: 'retry' } as const;
        });
        seams.on('agent/post-step', (c) => void post.push(c.step));
        seams.on('agent/pre-step', (c) => void pre.push(c.step));
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(prior).toEqual([0, 1]);
    expect(pre).toEqual([1, 2, 3]);
    expect(post).toEqual([3]);
    expect(t.data('turn/end')[0]?.reason).toEqual({ kind: 'completed' });
    t.check();
  });

  it('maxRequestRetries 0 means no retry even when a listener asks', async () => {
    const t = setup([{ error: { message: 'e1' } }, { text: 'never' }], {
      agent: { maxRequestRetries: 0 },
      register: (seams) => seams.on('agent/request-error', () => ({ action: 'retry' })),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.model.requests.length).toBe(1);
    expect(t.data('turn/end')[0]?.reason).toMatchObject({ kind: 'error', step: 1, message: 'e1' });
    t.check();
  });

  it('steer with meta/contexts while a turn is open: steering/message keeps meta and source', async () => {
    const t = setup([{ delayMs: 20, text: 'a' }, { text: 'b' }]);
    t.agent.followup('one');
    await sleep(5);
    t.agent.steer('st', {
      meta: { m: 1 },
      source: { kind: 'plugin', plugin: 'p' },
      contexts: [{ content: [{ type: 'text', text: 'sc' }], source: { kind: 'plugin', plugin: 'p' } }],
    });
    await t.agent.whenIdle();
    expect(t.data('steering/message')).toEqual([
      {
        turn: 1,
        content: [{ type: 'text', text: 'st' }],
        source: { kind: 'plugin', plugin: 'p' },
        meta: { m: 1 },
        itemId: 'm2',
      },
    ]);
    expect(t.types()).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'steering/message',
      'context/message',
      'step/end',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ]);
    t.check();
  });
  it('a listener added mid-turn to a seam that already has listeners waits for the next turn', async () => {
    const late: string[] = [];
    let added = false;
    const t = setup([{ text: 'a' }, { text: 'b' }, { text: 'c' }], {
      register: (seams) => {
        seams.on('agent/pre-step', (c) => {
          if (added) return;
          added = true;
          seams.on('agent/pre-step', (d) => void late.push(`pre t${d.turn}s${d.step}`));
          seams.on('agent/turn-continuation', (d, next) => {
            late.push(`cont t${d.turn}s${d.step}`);
            return next();
          });
          seams.on('agent/prompt-submit', (d, next) => {
            late.push(`prompt t${d.turn}`);
            return next();
          });
          c.agent.steer('again');
        });
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.data('step/start').length).toBe(2);
    expect(late).toEqual([]);
    t.agent.followup('two');
    await t.agent.whenIdle();
    expect(late).toEqual(['prompt t2', 'pre t2s1', 'cont t2s1']);
    t.check();
  });

  it('a listener disposed mid-turn still sees the rest of that turn (snapshot), not the next', async () => {
    const calls: string[] = [];
    const t = setup([{ text: 'a' }, { text: 'b' }, { text: 'c' }], {
      register: (seams) => {
        const off = seams.on('agent/post-step', (c) => void calls.push(`post t${c.turn}s${c.step}`));
        seams.on('agent/pre-step', (c) => {
          if (c.turn === 1 && c.step === 1) {
            off();
            c.agent.steer('again');
          }
        });
      },
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    t.agent.followup('two');
    await t.agent.whenIdle();
    expect(calls.every((c) => c.startsWith('post t1'))).toBe(true);
    t.check();
  });

  it('steering pending when the prompt is blocked is re-queued as a message and runs its own turn', async () => {
    const prompts: string[] = [];
    const t = setup([{ text: 'a' }], {
      register: (seams) =>
        seams.on('agent/prompt-submit', (c, next) => {
          prompts.push(text(c.content));
          if (text(c.content) === 'bad') {
            c.agent.steer('later');
            return { kind: 'block', reason: 'no' };
          }
          return next();
        }),
    });
    t.agent.followup('bad');
    await t.agent.whenIdle();
    expect(prompts).toEqual(['bad', 'later']);
    expect(t.data('turn/end').map((d) => (d.reason as { kind: string }).kind)).toEqual([
      'rejected',
      'completed',
    ]);
    expect(t.data('steering/message')).toEqual([]);
    expect(t.seen('agent/inbox/dequeue')).toMatchObject([
      { id: 'm1', steering: false },
      { id: 'm2', steering: false },
    ]);
    t.check();
  });

  it('cancel keepInbox re-queues the turn steering after the turn', async () => {
    const t = setup([{ hang: true }, { text: 'b' }]);
    t.agent.followup('one');
    await sleep(5);
    t.agent.steer('st');
    t.agent.cancel(undefined, { keepInbox: true });
    await t.agent.whenIdle();
    expect(t.data('turn/end').map((d) => (d.reason as { kind: string }).kind)).toEqual([
      'aborted',
      'completed',
    ]);
    expect(t.data('user/message').map((d) => text(d.content))).toEqual(['one', 'st']);
    expect(t.data('steering/message')).toEqual([]);
    expect(t.seen('agent/inbox/discard')).toEqual([]);
    t.check();
  });

  it('a cancel after turn/end only drops the queue (and says so only when something was queued)', async () => {
    const t = setup([{ text: 'a' }, { text: 'b' }], {
      register: (seams) =>
        seams.on('session/event', (e) => {
          if (e.event.type !== 'turn/end') return;
          const turn = (e.event.data as { turn: number }).turn;
          // After TURN_CLOSED reached the agent (a microtask later), before the turn's done.
          if (turn === 1)
            queueMicrotask(() => {
              t.agent.cancel();
              t.agent.followup('two');
              t.agent.cancel();
            });
        }),
    });
    t.agent.followup('one');
    await t.agent.whenIdle();
    expect(t.data('turn/end').map((d) => d.reason)).toEqual([{ kind: 'completed' }]);
    expect(t.seen('agent/cancel-requested').length).toBe(1);
    expect(t.seen('agent/inbox/discard')).toMatchObject([{ items: [{ id: 'm2', steering: false }] }]);
    expect(t.seen('agent/status').map((x) => x.status)).toEqual(['running', 'idle']);
    t.check();
  });

  it('agent-filtered listeners only see their agent', async () => {
    const seams = createSeams();
    const seen: string[] = [];
    seams.on('agent/pre-step', (c) => void seen.push(c.agent.id), { agent: 'A' });
    const mk = (id: string) =>
      createAgent({ seams, tools: createToolRegistry(), model: scriptedModel([{ text: 'x' }]), id });
    const a = mk('A');
    const b = mk('B');
    agents.push(a, b);
    a.followup('1');
    b.followup('2');
    await Promise.all([a.whenIdle(), b.whenIdle()]);
    expect(seen).toEqual(['A']);
    expect(checkInvariants(a.log.events)).toEqual([]);
    expect(checkInvariants(b.log.events)).toEqual([]);
  });
  it('prompt-submit runs inside the opened turn, before the prompt is recorded, with the turn and source', async () => {
    const seen: unknown[] = [];
    const t = setup([{ text: 'a' }], {
      register: (seams) =>
        seams.on('agent/prompt-submit', (c, next) => {
          seen.push({
            last: c.agent.log.events.at(-1)?.type,
            turn: c.turn,
            source: c.source,
            text: text(c.content),
            status: c.agent.status,
          });
          return next();
        }),
    });
    t.agent.followup('hi', { source: { kind: 'plugin', plugin: 'p' } });
    await t.agent.whenIdle();
    expect(seen).toEqual([
      { last: 'turn/start', turn: 1, source: { kind: 'plugin', plugin: 'p' }, text: 'hi', status: 'running' },
    ]);
    t.check();
  });

  it('turn-continuation default is continue after tool calls and stop otherwise', async () => {
    const defaults: unknown[] = [];
    const t = setup(
      [{ toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'x' } }] }, { text: 'done' }],
      {
        register: (seams) =>
          seams.on('agent/turn-continuation', (c, next) => {
            defaults.push(c.defaultDecision);
            return next();
          }),
      },
    );
    t.agent.followup('go');
    await t.agent.whenIdle();
    expect(defaults).toEqual([{ action: 'continue' }, { action: 'stop' }]);
    t.check();
  });

  it('plugin log events: refused while no turn is open (session-start, idle)', async () => {
    const type = `audit/outside-${Math.random().toString(36).slice(2)}`;
    defineLogEvent(type, z.object({}));
    let refused = false;
    const t = setup([], {
      register: (seams) =>
        seams.on('agent/session-start', (c) => {
          try {
            c.agent.log.append(type, {});
          } catch (error) {
            refused = /NO_OPEN_TURN|no turn|open turn/i.test(
              `${(error as { code?: string }).code} ${String(error)}`,
            );
          }
        }),
    });
    await t.agent.whenIdle();
    expect(refused).toBe(true);
    expect(t.agent.log.events).toEqual([]);
    t.check();
  });

  it('dispose while idle with only non-waking items discards them once', async () => {
    const t = setup([]);
    await t.agent.whenIdle();
    const id = t.agent.queue('q');
    await t.agent.dispose();
    expect(t.seen('agent/inbox/discard')).toMatchObject([{ items: [{ id, steering: false }] }]);
    expect(t.seen('agent/cancel-requested')).toEqual([]);
    await t.agent.whenIdle();
    t.check();
  });

  it('steering pending when a request fails for good is re-queued as a message', async () => {
    const t = setup([{ delayMs: 15, error: { message: 'down' } }, { text: 'ok' }] as never);
    t.agent.followup('one');
    await sleep(5);
    t.agent.steer('st');
    await t.agent.whenIdle();
    expect(t.data('turn/end').map((d) => (d.reason as { kind: string }).kind)).toEqual([
      'error',
      'completed',
    ]);
    expect(t.data('user/message').map((d) => text(d.content))).toEqual(['one', 'st']);
    t.check();
  });

  it('log.subscribe sees every append in order', async () => {
    const t = setup([{ text: 'a' }]);
    const seen: number[] = [];
    const off = t.agent.log.subscribe((e) => void seen.push(e.seq));
    t.agent.followup('one');
    await t.agent.whenIdle();
    (off as () => void)();
    expect(seen).toEqual(t.agent.log.events.map((e) => e.seq));
    t.check();
  });
  for (const seam of [
    'agent/prompt-submit',
    'agent/pre-step',
    'agent/post-step',
    'agent/turn-continuation',
    'agent/turn-stop',
    'agent/request-error',
  ] as const) {
    it(`cancel leaves ${seam} at once when its listener never settles`, async () => {
      const t = setup(
        seam === 'agent/request-error'
          ? [{ error: { message: 'x' } }, { text: 'b' }]
          : [{ text: 'a' }, { text: 'b' }],
        {
          register: (seams) =>
            seams.on(seam, ((c: { turn: number }, next?: () => unknown) =>
              c.turn === 1 ? new Promise(() => {}) : next?.()) as never),
        },
      );
      t.agent.followup('one');
      await sleep(10);
      t.agent.cancel();
      await t.agent.whenIdle();
      expect(t.data('turn/end').map((d) => d.reason)).toEqual([{ kind: 'aborted' }]);
      expect(t.seen('agent/error')).toEqual([]);
      t.agent.followup('two');
      await t.agent.whenIdle();
      expect(t.data('turn/end').length).toBe(2);
      t.check();
    });
  }
  it('messages sent while an aborted batch drains are kept; an effective cancel with nothing queued emits no discard', async () => {
    const slow = defineTool({
      name: 'slow',
      description: 'slow',
      parameters: z.object({}),
      execute: () => sleep(30).then(() => 'late'),
    });
    const t = setup([{ toolCalls: [{ id: 'c1', name: 'slow', arguments: {} }] }, { text: 'two done' }], {
      tools: [slow],
    });
    t.agent.followup('one');
    await sleep(10);
    t.agent.cancel();
    await sleep(5);
    t.agent.followup('two');
    await t.agent.whenIdle();
    expect(t.data('turn/end')).toEqual([
      { turn: 1, reason: { kind: 'aborted' } },
      { turn: 2, reason: { kind: 'completed' } },
    ]);
    expect(t.seen('agent/cancel-requested').length).toBe(1);
    expect(t.seen('agent/inbox/discard')).toEqual([]);
    t.check();
  });
  it('seam/decided names the deciding listener (<plugin>.<function>, <seam>#<n>)', async () => {
    const t = setup([{ text: 'a' }], {
      register: (seams) => {
        seams.use({
          name: 'pol',
          apply(s) {
            s.on('agent/prompt-submit', function check(c, next) {
              return text(c.content) === 'secret' ? { kind: 'block', reason: 'no secrets' } : next();
            });
          },
        });
        seams.on('agent/turn-continuation', () => ({ action: 'stop' }));
      },
    });
    t.agent.followup('secret');
    t.agent.followup('fine');
    await t.agent.whenIdle();
    expect(t.seen('seam/decided')).toMatchObject([
      { seam: 'agent/prompt-submit', decidedBy: 'pol.check', decision: { kind: 'block' }, turn: 1 },
      { seam: 'agent/prompt-submit', decidedBy: 'default', turn: 2 },
      { seam: 'agent/turn-continuation', decidedBy: 'agent/turn-continuation#1', turn: 2 },
    ]);
    expect(t.data('turn/end').map((d) => d.reason)).toEqual([
      { kind: 'rejected', reason: 'no secrets' },
      { kind: 'completed' },
    ]);
    expect(t.model.requests.length).toBe(1);
    t.check();
  });
});
