import { defineTool, type Seams } from 'seamchart';
import { createTestAgent } from 'seamchart/testing';
import { describe, expect, it } from 'vitest';
import type { InspectionEvent } from 'xstate';
import { z } from 'zod';

// The direct path (no call actor) and the stepped toolCall chart must write the same records and tell
// `tools/result` observers the same thing: the same turns are run with no decision listener, and with
// a pass-through `tools/pre-execute` listener, which makes every call an actor again. Only where the
// `tool/call` lines of parallel calls fall between earlier results may differ: a direct call starts at
// once, a stepped one after the call before it left its policy phase (both orders pass the invariants).

const echo = defineTool({
  name: 'echo',
  description: 'echoes',
  parameters: z.object({ text: z.string() }),
  concurrency: 'parallel',
  execute: ({ text }) => text,
});
const lock = defineTool({
  name: 'lock',
  description: 'exclusive',
  parameters: z.object({}),
  execute: () => 'locked',
});
const broken = defineTool({
  name: 'broken',
  description: 'throws',
  parameters: z.object({}),
  concurrency: 'parallel',
  execute: () => {
    throw new Error('disk on fire');
  },
});
const shouting = defineTool({
  name: 'shouting',
  description: 'finalizes its content',
  parameters: z.object({ text: z.string() }),
  concurrency: 'parallel',
  execute: ({ text }) => text,
  finalizeContent: (_exec, result) =>
    result.isError ? undefined : [{ type: 'text', text: String(result.value).toUpperCase() }],
});
const composite = defineTool({
  name: 'composite',
  description: 'defers contexts',
  parameters: z.object({}),
  concurrency: 'parallel',
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
  concurrency: 'parallel',
  maxContentBytes: 64,
  execute: () => 'é'.repeat(200),
});
/** Honors its signal: settles ABORTED once the cancel reaches it. */
const waiting = defineTool({
  name: 'waiting',
  description: 'waits for the cancel',
  parameters: z.object({}),
  concurrency: 'parallel',
  execute: (_args, exec) =>
    new Promise<string>((_, reject) =>
      exec.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true }),
    ),
});
/** Ignores its signal: only the cancel grace ends it. */
const stubborn = defineTool({
  name: 'stubborn',
  description: 'never settles',
  parameters: z.object({}),
  concurrency: 'parallel',
  execute: () => new Promise<string>(() => {}),
});
const tools = [echo, lock, broken, shouting, composite, bulky, waiting, stubborn];

type Call = {
  id: string;
  name: string;
  arguments: string | Record<string, never> | Record<string, string | number>;
};
const call = (id: string, name: string, args: Call['arguments'] = {}): Call => ({
  id,
  name,
  arguments: args,
});

type Path = 'direct' | 'stepped';
const passThrough = (seams: Seams): void => void seams.on('tools/pre-execute', (_exec, next) => next());

async function runTurn(path: Path, calls: Call[], cancelWhen?: (results: number) => boolean) {
  const actors: string[] = [];
  const test = createTestAgent({
    tools,
    script: [{ toolCalls: calls }, { text: 'done' }],
    plugins: path === 'stepped' ? [{ name: 'pass-through', apply: passThrough }] : [],
    options: {
      cancelGraceMs: 50,
      inspect: (event: InspectionEvent) => {
        if (event.type === '@xstate.actor') actors.push((event.actorRef as unknown as { id: string }).id);
      },
    },
  });
  test.agent.followup('go');
  if (cancelWhen) {
    while (!cancelWhen(test.eventData('tool/call').length)) await new Promise((r) => setTimeout(r, 1));
    test.agent.cancel();
  }
  await test.agent.whenIdle();
  await test.agent.dispose();
  test.expectInvariants();
  const log = test.agent.log.events.map(({ type, data }) => ({ type, data }));
  const observed = test.notifications
    .of('tools/result')
    .map(({ exec, result }) => ({ callId: exec.callId, result }));
  const decided = test.notifications
    .of('seam/decided')
    .map(({ seam, callId, decidedBy, decision }) => ({ seam, callId, decidedBy, decision }));
  return { log, observed, decided, callMachines: actors.filter((id) => id.startsWith('call-')).length };
}

/** Runs both paths; every started call is its chart, stepped by the batch (inspection shows it), with listeners or without; a call never started gets none. */
async function expectSamePaths(calls: Call[], started: number, cancelWhen?: (results: number) => boolean) {
  const direct = await runTurn('direct', calls, cancelWhen);
  const stepped = await runTurn('stepped', calls, cancelWhen);
  expect(direct.callMachines).toBe(started);
  expect(stepped.callMachines).toBe(started);
  const without = (log: typeof direct.log) => log.filter((event) => event.type !== 'tool/call');
  const only = (log: typeof direct.log) => log.filter((event) => event.type === 'tool/call');
  expect(without(direct.log)).toEqual(without(stepped.log));
  expect(only(direct.log)).toEqual(only(stepped.log));
  expect(direct.observed).toEqual(stepped.observed);
  // The skipped waterfalls still report their defaults; pre-execute's is the pass-through's when stepped.
  const ofSeam = (decided: typeof direct.decided, seam: string) => decided.filter((d) => d.seam === seam);
  expect(ofSeam(direct.decided, 'tools/post-execute')).toEqual(ofSeam(stepped.decided, 'tools/post-execute'));
  expect(ofSeam(direct.decided, 'tools/pre-execute')).toEqual(
    ofSeam(stepped.decided, 'tools/pre-execute').map((d) => ({ ...d, decidedBy: 'default' })),
  );
  return direct;
}

describe('the direct path writes what the stepped toolCall chart writes', () => {
  it('successes, a barrier, an unknown tool, bad arguments, a throw, a finalizer, deferred contexts, a cut', async () => {
    const { log } = await expectSamePaths(
      [
        call('c1', 'echo', { text: 'one' }),
        call('c2', 'echo', '{"text":"two"}'),
        call('c3', 'lock'),
        call('c4', 'nope'),
        call('c5', 'echo', '{"text":'),
        call('c6', 'echo', { text: 7 }),
        call('c7', 'broken'),
        call('c8', 'shouting', { text: 'quiet' }),
        call('c9', 'composite'),
        call('c10', 'bulky'),
      ],
      10,
    );
    const results = log.filter((event) => event.type === 'tool/result').map((event) => event.data);
    // Written in model order, with the outcomes a user sees.
    expect(results.map((data) => (data as { callId: string }).callId)).toEqual(
      Array.from({ length: 10 }, (_, index) => `c${index + 1}`),
    );
    expect(results.map((data) => (data as { error?: { code: string } }).error?.code ?? 'ok')).toEqual([
      'ok',
      'ok',
      'ok',
      'UNKNOWN_TOOL',
      'INVALID_ARGS',
      'INVALID_ARGS',
      'TOOL_FAILED',
      'ok',
      'ok',
      'ok',
    ]);
    expect(results[7]).toMatchObject({ content: [{ type: 'text', text: 'QUIET' }] });
    expect(results[9]).toMatchObject({ truncated: {} });
    expect(log.filter((event) => event.type === 'context/message').map((event) => event.data)).toMatchObject([
      { content: [{ type: 'text', text: 'later' }] },
    ]);
  });

  it('a cancel mid-body: a body that stops settles ABORTED, one that does not is cut off by the grace', async () => {
    const { log } = await expectSamePaths(
      [
        call('c1', 'echo', { text: 'before' }),
        call('c2', 'waiting'),
        call('c3', 'stubborn'),
        call('c4', 'lock'),
      ],
      3,
      (recorded) => recorded >= 3,
    );
    const results = log.filter((event) => event.type === 'tool/result').map((event) => event.data);
    expect(results).toMatchObject([
      { callId: 'c1', isError: false },
      { callId: 'c2', isError: true, error: { code: 'ABORTED' } },
      { callId: 'c3', isError: true, error: { code: 'ABORTED', note: expect.any(String) } },
      // The barrier never started: it gets a synthetic pair.
      { callId: 'c4', isError: true, error: { code: 'ABORTED_BEFORE_DISPATCH' } },
    ]);
    expect(log.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: { kind: 'aborted' } } });
  });
});

describe('a cancel from a listener on the tool/call record', () => {
  // A pass-through `tools/execute` listener steps the call but leaves pre- and post-execute at their defaults.
  const around = (seams: Seams): void => void seams.on('tools/execute', (exec, next) => next(exec));

  async function cancelOnRecord(path: Path) {
    const test = createTestAgent({
      tools,
      script: [{ toolCalls: [call('c1', 'echo', { text: 'x' })] }, { text: 'never asked' }],
      plugins: [
        {
          name: 'canceller',
          apply: (seams) =>
            void seams.on('session/event', ({ event }) => {
              if (event.type === 'tool/call') test.agent.cancel();
            }),
        },
        ...(path === 'stepped' ? [{ name: 'around', apply: around }] : []),
      ],
    });
    test.agent.followup('go');
    await test.agent.whenIdle();
    await test.agent.dispose();
    test.expectInvariants();
    return {
      log: test.agent.log.events.map(({ type, data }) => ({ type, data })),
      decided: test.notifications
        .of('seam/decided')
        .filter(({ callId }) => callId !== undefined)
        .map(({ seam, decidedBy }) => ({ seam, decidedBy })),
      observed: test.notifications.of('tools/result').map(({ result }) => result),
    };
  }

  it('finds the call read on both paths: the same records, defaults and result', async () => {
    const direct = await cancelOnRecord('direct');
    const stepped = await cancelOnRecord('stepped');
    expect(direct).toEqual(stepped);
    expect(direct.decided).toEqual([
      { seam: 'tools/pre-execute', decidedBy: 'default' },
      { seam: 'tools/post-execute', decidedBy: 'default' },
    ]);
    // The call is recorded and started in the step the model's answer began: the turn takes the cancel
    // after that step, so the started body is aborted (on both paths alike).
    expect(direct.log.find((event) => event.type === 'tool/result')?.data).toMatchObject({
      callId: 'c1',
      error: { code: 'ABORTED' },
    });
  });

  it('recorded after a tools/prepare fold, the cancel lands before the body: nothing is dispatched', async () => {
    let ran = 0;
    const counted = defineTool({
      name: 'counted',
      description: 'counts its runs',
      parameters: z.object({}),
      execute: () => {
        ran++;
        return 'ran';
      },
    });
    const test = createTestAgent({
      tools: [counted],
      script: [{ toolCalls: [call('c1', 'counted')] }, { text: 'never asked' }],
      plugins: [
        {
          name: 'canceller',
          apply: (seams) => {
            seams.on('tools/prepare', () => ({ kind: 'keep' }));
            seams.on('session/event', ({ event }) => {
              if (event.type === 'tool/call') test.agent.cancel();
            });
          },
        },
      ],
    });
    test.agent.followup('go');
    await test.agent.whenIdle();
    await test.agent.dispose();
    test.expectInvariants();
    const result = test.agent.log.events.find((event) => event.type === 'tool/result');
    expect(result?.data).toMatchObject({ callId: 'c1', error: { code: 'ABORTED_BEFORE_DISPATCH' } });
    expect(ran).toBe(0);
  });
});

describe('write-ahead: a body starts only once its tool/call is in the log', () => {
  it('on both paths, for every call of a parallel batch', async () => {
    for (const path of ['direct', 'stepped'] as const) {
      const seen: boolean[] = [];
      const test = createTestAgent({
        tools: [
          defineTool({
            name: 'peek',
            description: 'looks for its own tool/call',
            parameters: z.object({}),
            concurrency: 'parallel',
            execute: (_args, exec) => {
              seen.push(
                test.agent.log.events.some(
                  (event) =>
                    event.type === 'tool/call' && (event.data as { callId: string }).callId === exec.callId,
                ),
              );
              return 'ok';
            },
          }),
        ],
        script: [{ toolCalls: [call('c1', 'peek'), call('c2', 'peek')] }, { text: 'done' }],
        plugins:
          path === 'stepped'
            ? [
                {
                  name: 'around',
                  apply: (seams) => void seams.on('tools/execute', (exec, next) => next(exec)),
                },
              ]
            : [],
      });
      test.agent.followup('go');
      await test.agent.whenIdle();
      await test.agent.dispose();
      test.expectInvariants();
      expect(seen).toEqual([true, true]);
    }
  });
});
