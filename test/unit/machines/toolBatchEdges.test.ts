import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { classifyCall } from '../../../machines/toolBatch/actors.js';
import { checkInvariants } from '../../../session/index.js';
import type { SessionLog } from '../../../session/types.js';
import { createToolRegistryCore, defineTool } from '../../../tools/index.js';
import { deferred } from '../tools/fixtures.js';
import { createBatchHarness, toolCall } from './toolBatch.harness.js';

const parameters = z.object({ fast: z.boolean().optional() });

describe('toolBatch edges', () => {
  it('an abort before any call started gives every call an adjacent synthetic pair; no seam runs', async () => {
    const harness = createBatchHarness();
    const pre = vi.fn((_exec, next) => next());
    harness.seams.on('tools/pre-execute', pre);
    harness.tools.register(defineTool({ name: 't', description: 'x', parameters, execute: () => 'ran' }));
    // The batch's first call starts as the batch does: only an abort before the start comes before any call.
    const run = harness.run([toolCall('c1', 't'), toolCall('c2', 't')], { abortedBeforeStart: true });
    const { output, contexts } = await run.finished;
    expect(output).toEqual({ aborted: true });
    expect(contexts).toEqual([]);
    expect(pre).not.toHaveBeenCalled();
    expect(harness.trace()).toEqual(['tool/call c1', 'tool/result c1', 'tool/call c2', 'tool/result c2']);
    const result = harness.log.events.find((event) => event.type === 'tool/result')?.data;
    expect(result).toMatchInlineSnapshot(`
      {
        "callId": "c1",
        "content": [
          {
            "text": "Error: Tool call aborted before dispatch",
            "type": "text",
          },
        ],
        "error": {
          "code": "ABORTED_BEFORE_DISPATCH",
          "message": "Tool call aborted before dispatch",
        },
        "isError": true,
        "step": 1,
        "turn": 1,
      }
    `);
    expect(checkInvariants(harness.log.events)).toEqual([]);
  });

  it('modes are read at start: the function form gets the sealed arguments; unknown tools and doubts are exclusive', () => {
    const tools = createToolRegistryCore();
    const seen: unknown[] = [];
    tools.register(
      defineTool({
        name: 'maybe',
        description: 'x',
        parameters,
        execute: () => null,
        concurrency: (args) => {
          seen.push(args);
          return (args as { fast?: boolean }).fast === true;
        },
      }),
    );
    tools.register(
      defineTool({
        name: 'throws',
        description: 'x',
        parameters,
        execute: () => null,
        concurrency: () => {
          throw new Error('no idea');
        },
      }),
    );
    const mode = (name: string, args: string) =>
      classifyCall({ tools }, { type: 'tool-call', id: 'c', name, arguments: args });
    expect(mode('maybe', '{"fast":true}')).toBe('parallel');
    expect(mode('maybe', '{"fast":false}')).toBe('exclusive');
    expect(mode('maybe', '{"fast": 1e999}')).toBe('exclusive');
    expect(mode('throws', '{}')).toBe('exclusive');
    expect(mode('missing', '{}')).toBe('exclusive');
    expect(seen).toEqual([{ fast: true }, { fast: false }]);
    expect(Object.isFrozen(seen[0])).toBe(true);
  });

  it('denials, unknown tools and bad argument text are typed results in model order', async () => {
    const harness = createBatchHarness();
    harness.tools.register(
      defineTool({
        name: 'ok',
        description: 'x',
        parameters,
        execute: () => 'fine',
        concurrency: 'parallel',
      }),
    );
    harness.seams.guard((exec) => (exec.callId === 'c2' ? 'not this one' : undefined));
    await harness.run([
      toolCall('c1', 'ok'),
      toolCall('c2', 'ok'),
      { type: 'tool-call', id: 'c3', name: 'ok', arguments: '{not json' },
      toolCall('c4', 'nope'),
    ]).finished;
    const results = harness.log.events
      .filter((event) => event.type === 'tool/result')
      .map((event) => event.data);
    expect(
      results.map((data) => [
        (data as { callId: string }).callId,
        (data as { error?: { code: string } }).error?.code,
      ]),
    ).toEqual([
      ['c1', undefined],
      ['c2', 'DENIED'],
      ['c3', 'INVALID_ARGS'],
      ['c4', 'UNKNOWN_TOOL'],
    ]);
    expect(checkInvariants(harness.log.events)).toEqual([]);
  });

  it('a refused append finishes the batch with an error flag instead of crashing', async () => {
    const harness = createBatchHarness();
    harness.tools.register(defineTool({ name: 'ok', description: 'x', parameters, execute: () => 'fine' }));
    const refusing: SessionLog = {
      ...harness.log,
      appendCore: ((type, data) => {
        if (type === 'tool/result') throw new Error('disk full');
        return harness.log.appendCore(type, data);
      }) as SessionLog['appendCore'],
    };
    const { output } = await harness.run([toolCall('c1', 'ok')], { batchLog: refusing }).finished;
    expect(output).toEqual({ aborted: false, error: 'Recording tool/result failed: disk full' });
  });

  it('a started call that is aborted drains: post-execute still runs and its contexts are returned', async () => {
    const harness = createBatchHarness();
    const started = deferred();
    const release = deferred<string>();
    harness.tools.register(
      defineTool({
        name: 'held',
        description: 'x',
        parameters,
        execute: () => {
          started.resolve();
          return release.promise;
        },
      }),
    );
    harness.seams.on('tools/post-execute', ({ exec }) => ({
      kind: 'accept',
      additionalContexts: [
        { content: [{ type: 'text', text: `ctx-${exec.callId}` }], source: { kind: 'user' } },
      ],
    }));
    const run = harness.run([toolCall('c1', 'held'), toolCall('c2', 'held')]);
    await started.promise;
    // Only the event: the batch itself must forward the abort to the started call.
    run.abortBatchOnly();
    release.resolve('late success');
    const { output } = await run.finished;
    expect(output).toEqual({ aborted: true });
    expect(harness.trace()).toEqual([
      'tool/call c1',
      'tool/result c1',
      'tool/call c2',
      'tool/result c2',
      'context/message ctx-c1',
    ]);
    const result = harness.log.events.find((event) => event.type === 'tool/result')?.data as {
      error?: { code: string };
    };
    expect(result.error?.code).toBe('ABORTED');
    expect(checkInvariants(harness.log.events)).toEqual([]);
  });
});
