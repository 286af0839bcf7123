import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSeams } from '../../../seams/index.js';
import {
  createToolRegistryCore,
  defineTool,
  describeToolCallRecord,
  detachToolCall,
  isPreparable,
  prepareToolInput,
  sealToolCall,
} from '../../../tools/index.js';

const signal = new AbortController().signal;
const grep = defineTool({
  name: 'grep',
  description: 'search',
  parameters: z.object({ pattern: z.string(), tool: z.enum(['grep', 'rg']).optional() }),
  execute: () => null,
  finalizeContent: () => undefined,
});
const tools = createToolRegistryCore();
tools.register(grep);
const detach = (args: unknown, name = 'grep') =>
  detachToolCall({ callId: 'c1', name, arguments: args, signal }, tools);

describe('prepare: the fold rule for one call', () => {
  it('prepares only known tools whose arguments parse as a plain JSON object', () => {
    expect(isPreparable(detach('{"pattern":"x"}'))).toBe(true);
    expect(isPreparable(detach(''))).toBe(true);
    expect(isPreparable(detach('[1]'))).toBe(false);
    expect(isPreparable(detach('not json'))).toBe(false);
    expect(isPreparable(detach('{"big": 1e999}'))).toBe(false);
    expect(isPreparable(detach('{"pattern":"x"}', 'nope'))).toBe(false);
  });

  it('seals the effective input once, with original and rewrites only when rewritten', async () => {
    const seams = createSeams();
    seams.on(
      'tools/prepare',
      (ctx) => ({ kind: 'rewrite', arguments: { ...ctx.arguments, tool: 'rg' }, reason: 'rg is faster' }),
      {
        name: 'router',
      },
    );
    const call = detach('{"pattern":"x"}');
    if (!isPreparable(call)) throw new Error('expected a preparable call');
    const outcome = await prepareToolInput(seams.snapshot(), call, {});
    expect(outcome).toEqual({
      kind: 'prepared',
      input: {
        arguments: { pattern: 'x', tool: 'rg' },
        original: { pattern: 'x' },
        rewrites: [{ by: 'router', reason: 'rg is faster' }],
      },
    });
    const { exec } = sealToolCall(call, outcome.input);
    expect(exec.arguments).toEqual({ pattern: 'x', tool: 'rg' });
    expect(exec.original).toEqual({ pattern: 'x' });
    expect(exec.rewrites).toEqual([{ by: 'router', reason: 'rg is faster' }]);
    expect(Object.isFrozen(exec.rewrites)).toBe(true);
    expect(describeToolCallRecord('{"pattern":"x"}', outcome.input)).toEqual({
      arguments: '{"pattern":"x","tool":"rg"}',
      original: '{"pattern":"x"}',
      rewrites: [{ by: 'router', reason: 'rg is faster' }],
    });

    const untouched = sealToolCall(call, { arguments: call.arguments });
    expect(untouched.exec).not.toHaveProperty('original');
    expect(untouched.exec).not.toHaveProperty('rewrites');
    expect(describeToolCallRecord(' {"pattern": "x"} ', { arguments: call.arguments })).toEqual({
      arguments: ' {"pattern": "x"} ',
    });
  });

  it('a rewrite the tool schema refuses is INVALID_ARGS naming the listener; the model is not blamed', async () => {
    const seams = createSeams();
    seams.on('tools/prepare', () => ({ kind: 'rewrite', arguments: { pattern: 'y' } }), { name: 'fine' });
    seams.on('tools/prepare', () => ({ kind: 'rewrite', arguments: { pattern: 42 } }), { name: 'broken' });
    const call = detach('{"pattern":"x"}');
    if (!isPreparable(call)) throw new Error('expected a preparable call');
    const outcome = await prepareToolInput(seams.snapshot(), call, {});
    expect(outcome.kind).toBe('failed');
    if (outcome.kind !== 'failed') return;
    expect(outcome.result.isError && outcome.result.error).toMatchInlineSnapshot(`
      {
        "code": "INVALID_ARGS",
        "message": "Listener "broken" on seam "tools/prepare" returned invalid arguments for tool "grep": Invalid input: expected string at "pattern", received 42",
      }
    `);
    // What the call is sealed with for finalize and tools/result: the input before the refused rewrite.
    expect(outcome.input).toEqual({
      arguments: { pattern: 'y' },
      original: { pattern: 'x' },
      rewrites: [{ by: 'fine' }],
    });
  });

  it('a rewrite that is not a plain JSON object is INVALID_ARGS; a throw is PIPELINE_ERROR', async () => {
    const call = detach('{"pattern":"x"}');
    if (!isPreparable(call)) throw new Error('expected a preparable call');
    const notJson = createSeams();
    notJson.on('tools/prepare', () => ({ kind: 'rewrite', arguments: { pattern: 'y', n: Number.NaN } }), {
      name: 'nan',
    });
    const refused = await prepareToolInput(notJson.snapshot(), call, {});
    expect(refused.kind === 'failed' && refused.result.isError && refused.result.error.code).toBe(
      'INVALID_ARGS',
    );
    expect(refused.kind === 'failed' && refused.result.isError && refused.result.error.message).toBe(
      'Listener "nan" on seam "tools/prepare" returned arguments that are not plain JSON: NaN at "arguments.n"',
    );
    const text = createSeams();
    text.on('tools/prepare', () => ({ kind: 'rewrite', arguments: 'grep -r x' as never }), { name: 'text' });
    const textual = await prepareToolInput(text.snapshot(), call, {});
    expect(textual.kind === 'failed' && textual.result.isError && textual.result.error.message).toBe(
      'Listener "text" on seam "tools/prepare" returned arguments that are not a JSON object, got `"grep -r x"` (string)',
    );

    const throwing = createSeams();
    throwing.on(
      'tools/prepare',
      () => {
        throw new Error('no route');
      },
      { name: 'router' },
    );
    const failed = await prepareToolInput(throwing.snapshot(), call, {});
    expect(failed.kind === 'failed' && failed.result.isError && failed.result.error).toEqual({
      code: 'PIPELINE_ERROR',
      message: 'Listener "router" on seam "tools/prepare" failed: no route',
    });
    expect(failed.input).toEqual({ arguments: { pattern: 'x' } });
  });

  it('a listener that mutates its returned object afterwards does not change what was accepted', async () => {
    const seams = createSeams();
    const mine = { pattern: 'y' };
    seams.on('tools/prepare', () => ({ kind: 'rewrite', arguments: mine }));
    const call = detach('{"pattern":"x"}');
    if (!isPreparable(call)) throw new Error('expected a preparable call');
    const outcome = await prepareToolInput(seams.snapshot(), call, {});
    mine.pattern = 'changed';
    expect(outcome.input.arguments).toEqual({ pattern: 'y' });
    expect(Object.isFrozen(outcome.input.arguments)).toBe(true);
    expect(Object.isFrozen(mine)).toBe(false);
  });
});
