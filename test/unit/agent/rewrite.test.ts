import {
  createSeams,
  createToolRegistry,
  defineTool,
  type PrepareContext,
  type SeamMap,
  type SeamPlugin,
  type Seams,
  type ToolExecution,
} from 'seamchart';
import { createTestAgent } from 'seamchart/testing';
import { describe, expect, it } from 'vitest';
import { Actor, type InspectionEvent } from 'xstate';
import { z } from 'zod';

type Seen = { phase: string; arguments: unknown; original?: unknown; rewrites?: unknown };

/** A grep tool that records what its body and finalizer were given. */
function createGrep(seen: Seen[]) {
  return defineTool({
    name: 'grep',
    description: 'search files',
    parameters: z.object({
      pattern: z.string(),
      tool: z.enum(['grep', 'rg']).optional(),
      dryRun: z.boolean().optional(),
    }),
    execute: (args, exec) => {
      seen.push({ phase: 'body', arguments: args, original: exec.original, rewrites: exec.rewrites });
      return `searched ${args.pattern} with ${args.tool ?? 'grep'}`;
    },
    finalizeContent: (exec) => {
      seen.push({ phase: 'finalize', arguments: exec.arguments, original: exec.original });
      return undefined;
    },
  });
}

const record = (seen: Seen[], phase: string, exec: ToolExecution) =>
  seen.push({ phase, arguments: exec.arguments, original: exec.original, rewrites: exec.rewrites });

/** Records what pre-execute, post-execute and tools/result saw of the call. */
function recordPhases(seams: Seams, seen: Seen[]): void {
  seams.on('tools/pre-execute', (exec, next) => {
    record(seen, 'pre', exec);
    return next();
  });
  seams.on('tools/post-execute', ({ exec }, next) => {
    record(seen, 'post', exec);
    return next();
  });
  seams.on('tools/result', ({ exec }) => void record(seen, 'result', exec));
}

function scriptFor(args: string) {
  return [{ toolCalls: [{ id: 'c1', name: 'grep', arguments: args }] }, { text: 'done' }];
}

/** A test agent with the grep tool, a script calling it with `args`, and one plugin `name` applying `apply`. */
function grepAgent(seen: Seen[], args: string, name: string, apply: SeamPlugin['apply']) {
  return createTestAgent({ tools: [createGrep(seen)], script: scriptFor(args), plugins: [{ name, apply }] });
}

async function runTurn(test: ReturnType<typeof createTestAgent>) {
  test.agent.followup('search');
  await test.agent.whenIdle();
  await test.agent.dispose();
  test.expectInvariants();
  const events = test.agent.log.events;
  return {
    call: events.find((event) => event.type === 'tool/call')?.data as Record<string, unknown>,
    result: events.find((event) => event.type === 'tool/result')?.data as Record<string, unknown>,
    events,
  };
}

describe('W rewriting a call input', () => {
  it('W01 two tools/prepare listeners both rewrite: the second sees the first; the log, body and later seams agree on what ran', async () => {
    const seen: Seen[] = [];
    const prepared: PrepareContext[] = [];
    const test = grepAgent(seen, '{"pattern":"TODO"}', 'rewriters', (seams) => {
      seams.on(
        'tools/prepare',
        (ctx) => {
          prepared.push(ctx);
          return {
            kind: 'rewrite',
            arguments: { ...ctx.arguments, tool: 'rg' },
            reason: 'rg is faster',
          };
        },
        { name: 'router' },
      );
      seams.on(
        'tools/prepare',
        (ctx) => {
          prepared.push(ctx);
          return { kind: 'rewrite', arguments: { ...ctx.arguments, dryRun: true } };
        },
        { name: 'dry-run' },
      );
      recordPhases(seams, seen);
    });
    const { call, result, events } = await runTurn(test);

    // The second listener saw the first's result, and both saw the model's input and the steps so far.
    expect(prepared.map((ctx) => [ctx.arguments, ctx.original, ctx.steps.map((step) => step.by)])).toEqual([
      [{ pattern: 'TODO' }, { pattern: 'TODO' }, []],
      [{ pattern: 'TODO', tool: 'rg' }, { pattern: 'TODO' }, ['router']],
    ]);
    const effective = { pattern: 'TODO', tool: 'rg', dryRun: true };
    const rewrites = [{ by: 'router', reason: 'rg is faster' }, { by: 'dry-run' }];
    expect(call).toEqual({
      turn: 1,
      step: 1,
      callId: 'c1',
      name: 'grep',
      arguments: JSON.stringify(effective),
      original: '{"pattern":"TODO"}',
      rewrites,
    });
    expect(result).toMatchObject({
      isError: false,
      content: [{ type: 'text', text: 'searched TODO with rg' }],
    });
    const original = { pattern: 'TODO' };
    expect(seen).toEqual([
      { phase: 'pre', arguments: effective, original, rewrites },
      { phase: 'body', arguments: effective, original, rewrites },
      { phase: 'post', arguments: effective, original, rewrites },
      { phase: 'finalize', arguments: effective, original },
      { phase: 'result', arguments: effective, original, rewrites },
    ]);
    // The model's message stays what the model said; the tool result answers its call id.
    const assistant = events.find((event) => event.type === 'assistant/message')?.data as {
      content: unknown[];
    };
    expect(assistant.content).toContainEqual({
      type: 'tool-call',
      id: 'c1',
      name: 'grep',
      arguments: '{"pattern":"TODO"}',
    });
    const second = test.model.requests[1]!;
    expect(second.messages.at(-1)).toMatchObject({ role: 'tool', callId: 'c1' });
    // seam/decided for the fold carries every step.
    const decided = test.notifications
      .of('seam/decided')
      .filter((payload: SeamMap['seam/decided']['ctx']) => payload.seam === 'tools/prepare');
    expect(decided).toHaveLength(1);
    expect(decided[0]).toMatchObject({
      decidedBy: 'dry-run',
      decision: { kind: 'rewrite', arguments: effective },
      steps: [
        { by: 'router', reason: 'rg is faster', arguments: { pattern: 'TODO', tool: 'rg' } },
        { by: 'dry-run', arguments: effective },
      ],
      callId: 'c1',
      turn: 1,
    });
  });

  it('W01 tool/call is appended after prepare and before pre-execute', async () => {
    const order: string[] = [];
    const test = grepAgent([], '{"pattern":"a"}', 'order', (seams) => {
      seams.on('session/event', ({ event }) => {
        if (event.type === 'tool/call') order.push('tool/call');
      });
      seams.on('tools/prepare', () => void order.push('prepare'));
      seams.on('tools/pre-execute', (_exec, next) => {
        order.push('pre-execute');
        return next();
      });
    });
    const { call } = await runTurn(test);
    expect(order).toEqual(['prepare', 'tool/call', 'pre-execute']);
    // Every listener kept the input: no rewrite record.
    expect(call).toEqual({ turn: 1, step: 1, callId: 'c1', name: 'grep', arguments: '{"pattern":"a"}' });
  });

  it('W02 an invalid rewrite ends the call INVALID_ARGS naming the listener; the body, pre- and post-execute never run', async () => {
    const seen: Seen[] = [];
    const test = grepAgent(seen, '{"pattern":"a"}', 'broken', (seams) => {
      seams.on('tools/prepare', () => ({ kind: 'rewrite', arguments: { pattern: 'b' } }), {
        name: 'fine',
      });
      seams.on('tools/prepare', () => ({ kind: 'rewrite', arguments: { pattern: ['not', 'a', 'string'] } }), {
        name: 'sloppy',
      });
      recordPhases(seams, seen);
    });
    const { call, result } = await runTurn(test);
    expect(result).toMatchObject({
      isError: true,
      error: {
        code: 'INVALID_ARGS',
        message: expect.stringContaining(
          'Listener "sloppy" on seam "tools/prepare" returned invalid arguments for tool "grep"',
        ),
      },
    });
    expect(seen.map((entry) => entry.phase)).toEqual(['finalize', 'result']);
    // The record shows the rewrite applied before the refused one.
    expect(call).toMatchObject({
      arguments: '{"pattern":"b"}',
      original: '{"pattern":"a"}',
      rewrites: [{ by: 'fine' }],
    });
  });

  it('W02 a throwing prepare listener is PIPELINE_ERROR; the body never runs; finalize and tools/result still do', async () => {
    const seen: Seen[] = [];
    const test = grepAgent(seen, '{"pattern":"a"}', 'thrower', (seams) => {
      seams.on(
        'tools/prepare',
        () => {
          throw new Error('route table missing');
        },
        { name: 'router' },
      );
      seams.on('tools/result', ({ exec }) => void record(seen, 'result', exec));
    });
    const { call, result } = await runTurn(test);
    expect(result).toMatchObject({
      isError: true,
      error: {
        code: 'PIPELINE_ERROR',
        message: 'Listener "router" on seam "tools/prepare" failed: route table missing',
      },
    });
    expect(seen.map((entry) => entry.phase)).toEqual(['finalize', 'result']);
    expect(call).toEqual({ turn: 1, step: 1, callId: 'c1', name: 'grep', arguments: '{"pattern":"a"}' });
  });

  it('W02 prepare is skipped for arguments that are not a JSON object and for unknown tools', async () => {
    const asked: string[] = [];
    const test = createTestAgent({
      tools: [createGrep([])],
      script: [
        {
          toolCalls: [
            { id: 'c1', name: 'grep', arguments: 'not json' },
            { id: 'c2', name: 'grep', arguments: '[1,2]' },
            { id: 'c3', name: 'nope', arguments: '{}' },
            { id: 'c4', name: 'grep', arguments: '{"pattern":"ok"}' },
          ],
        },
        { text: 'done' },
      ],
      plugins: [
        { name: 'p', apply: (seams) => seams.on('tools/prepare', (ctx) => void asked.push(ctx.callId)) },
      ],
    });
    const { events } = await runTurn(test);
    expect(asked).toEqual(['c4']);
    const codes = events
      .filter((event) => event.type === 'tool/result')
      .map((event) => (event.data as { error?: { code: string } }).error?.code ?? 'ok');
    expect(codes).toEqual(['INVALID_ARGS', 'INVALID_ARGS', 'UNKNOWN_TOOL', 'ok']);
  });

  it('W02 a cancel while a prepare listener hangs ends the call ABORTED_BEFORE_DISPATCH, recorded with the model input', async () => {
    const seen: Seen[] = [];
    let entered!: () => void;
    const inPrepare = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const test = createTestAgent({
      tools: [createGrep(seen)],
      script: scriptFor('{"pattern":"a"}'),
      plugins: [
        {
          name: 'hang',
          apply: (seams) =>
            seams.on('tools/prepare', () => {
              entered();
              return new Promise(() => {});
            }),
        },
      ],
    });
    test.agent.followup('search');
    await inPrepare;
    test.agent.cancel();
    await test.agent.whenIdle();
    await test.agent.dispose();
    test.expectInvariants();
    const events = test.agent.log.events;
    expect(events.find((event) => event.type === 'tool/call')?.data).toEqual({
      turn: 1,
      step: 1,
      callId: 'c1',
      name: 'grep',
      arguments: '{"pattern":"a"}',
    });
    expect(events.find((event) => event.type === 'tool/result')?.data).toMatchObject({
      error: { code: 'ABORTED_BEFORE_DISPATCH' },
    });
    expect(events.at(-1)?.data).toMatchObject({ reason: { kind: 'aborted' } });
    expect(seen.map((entry) => entry.phase)).toEqual(['finalize']);
  });

  it('W04 a seam with no prepare listeners adds no actor and no log field', async () => {
    const actorsOf = async (withListener: boolean) => {
      const sources: string[] = [];
      const stepped: string[] = [];
      const inspect = (event: InspectionEvent) => {
        if (event.type !== '@xstate.actor') return;
        const id = (event.actorRef as unknown as { id: string }).id.replace(/^x:\d+$/, 'root');
        (event.actorRef instanceof Actor ? sources : stepped).push(id);
      };
      const test = createTestAgent({
        tools: [createGrep([])],
        script: scriptFor('{"pattern":"a"}'),
        plugins: withListener
          ? [{ name: 'keeper', apply: (seams) => seams.on('tools/prepare', () => ({ kind: 'keep' })) }]
          : [],
        options: { inspect },
      });
      const { call } = await runTurn(test);
      return { sources, stepped, call };
    };
    const without = await actorsOf(false);
    const keeping = await actorsOf(true);
    // With or without the fold, the call is its machine, stepped inside the batch (no actor), and the
    // fold a phase of it, not an actor of its own (F01).
    expect(without.stepped).toEqual(['call-0']);
    expect(keeping.sources).toEqual(without.sources);
    expect(keeping.stepped).toEqual(['call-0']);
    for (const { call } of [without, keeping]) {
      expect(Object.keys(call).sort()).toEqual(['arguments', 'callId', 'name', 'step', 'turn']);
    }
  });

  it('W01 a standalone tools.execute runs the fold and hands the effective input to the body', async () => {
    const seen: Seen[] = [];
    const tools = createToolRegistry();
    tools.register(createGrep(seen));
    const seams = createSeams();
    seams.on('tools/prepare', (ctx) => ({ kind: 'rewrite', arguments: { ...ctx.arguments, tool: 'rg' } }), {
      name: 'router',
    });
    const result = await tools.execute({ name: 'grep', arguments: '{"pattern":"x"}' }, { seams });
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'searched x with rg' }] });
    expect(seen[0]).toEqual({
      phase: 'body',
      arguments: { pattern: 'x', tool: 'rg' },
      original: { pattern: 'x' },
      rewrites: [{ by: 'router' }],
    });
  });
});
