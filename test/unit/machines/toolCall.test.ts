import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { ToolResult } from '../../../kernel/index.js';
import type { ToolExecution } from '../../../seams/types.js';
import { createFailureResult, defineTool } from '../../../tools/index.js';
import { createFixture, textContext } from '../tools/fixtures.js';

const call = (text = 'hi') => ({ name: 'echo', arguments: JSON.stringify({ text }), callId: 'c1' });

describe('toolCall pipeline via tools.execute', () => {
  it('T01 pre-execute deny: the body never runs; DENIED with the reason; post-execute ran', async () => {
    const { tools, seams } = createFixture();
    const body = vi.fn(() => 'ran');
    tools.register(defineTool({ name: 'rm', description: 'x', parameters: z.object({}), execute: body }));
    const post = vi.fn((_ctx, next) => next());
    seams.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'rm is not allowed here' }));
    seams.on('tools/post-execute', post);
    const result = await tools.execute({ name: 'rm', arguments: '{}' }, { seams });
    expect(body).not.toHaveBeenCalled();
    expect(post).toHaveBeenCalledTimes(1);
    expect(post.mock.calls[0]?.[0].result.error.code).toBe('DENIED');
    expect(result).toMatchInlineSnapshot(`
      {
        "content": [
          {
            "text": "Error: rm is not allowed here",
            "type": "text",
          },
        ],
        "error": {
          "code": "DENIED",
          "message": "rm is not allowed here",
        },
        "isError": true,
      }
    `);
  });

  it('T02 a guard denies although a prepended pre-execute listener returned allow', async () => {
    const { tools, seams } = createFixture();
    const body = vi.fn(() => 'ran');
    tools.register(defineTool({ name: 'write', description: 'x', parameters: z.object({}), execute: body }));
    seams.on('tools/pre-execute', () => ({ kind: 'allow' }), { prepend: true });
    seams.guard((exec) => (exec.name === 'write' ? 'writes are frozen' : undefined));
    const result = await tools.execute({ name: 'write', arguments: '{}' }, { seams });
    expect(body).not.toHaveBeenCalled();
    expect(result.isError && result.error).toEqual({ code: 'DENIED', message: 'writes are frozen' });
  });

  it('T03 ask without a channel is a denial; allowed-once runs; rejected is a denial', async () => {
    const { tools, seams } = createFixture();
    seams.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'echo is loud' }));
    const none = await tools.execute(call(), { seams });
    expect(none.isError && none.error.message).toMatchInlineSnapshot(
      `"Tool "echo" needs approval, but there is no approval channel"`,
    );

    const asked: unknown[] = [];
    const allow = await tools.execute(call('yes'), {
      seams,
      approval: {
        request: async (q) => {
          asked.push({ ...q, signal: undefined });
          return 'allowed-once';
        },
      },
    });
    expect(allow).toMatchObject({ isError: false, value: 'yes' });
    expect(asked).toEqual([
      {
        toolName: 'echo',
        callId: 'c1',
        arguments: { text: 'yes' },
        reason: 'echo is loud',
        signal: undefined,
      },
    ]);

    const rejected = await tools.execute(call(), { seams, approval: { request: async () => 'rejected' } });
    expect(rejected.isError && rejected.error).toEqual({
      code: 'DENIED',
      message: 'Approval for tool "echo" was rejected',
    });
    const unavailable = await tools.execute(call(), {
      seams,
      approval: { request: async () => 'unavailable' },
    });
    expect(unavailable.isError && unavailable.error.message).toBe('Approval for tool "echo" is unavailable');
  });

  it('T03 an agent-less call does not use the registry channel: the denial says "no agent"', async () => {
    const { tools, seams } = createFixture();
    const request = vi.fn(async () => 'allowed-once' as const);
    seams.setApproval({ request });
    seams.on('tools/pre-execute', () => ({ kind: 'ask' }));
    const result = await tools.execute(call(), { seams });
    expect(request).not.toHaveBeenCalled();
    expect(result.isError && result.error.message).toMatchInlineSnapshot(
      `"Tool "echo" needs approval, but the call has no agent to ask through (pass \`approval\` to tools.execute)"`,
    );
  });

  it('T04 a throwing pre-execute listener: PIPELINE_ERROR, post skipped, finalize and tools/result once', async () => {
    const { tools, seams } = createFixture();
    const finalize = vi.fn(() => undefined);
    tools.register(
      defineTool({
        name: 'f',
        description: 'x',
        parameters: z.object({}),
        execute: () => 'v',
        finalizeContent: finalize,
      }),
    );
    const post = vi.fn((_ctx, next) => next());
    const observed = vi.fn();
    seams.on('tools/pre-execute', function policy() {
      throw new Error('policy crashed');
    });
    seams.on('tools/post-execute', post);
    seams.on('tools/result', observed);
    const result = await tools.execute({ name: 'f', arguments: '{}' }, { seams });
    expect(post).not.toHaveBeenCalled();
    expect(finalize).toHaveBeenCalledTimes(1);
    expect(observed).toHaveBeenCalledTimes(1);
    expect(result.isError && result.error).toMatchInlineSnapshot(`
      {
        "code": "PIPELINE_ERROR",
        "message": "Listener "tools/pre-execute#1" on seam "tools/pre-execute" failed: policy crashed",
      }
    `);
  });

  it('T05 unknown tool, invalid arguments naming the field, and a throwing body (also a non-Error)', async () => {
    const { tools, seams } = createFixture();
    tools.register(
      defineTool({
        name: 'boom',
        description: 'x',
        parameters: z.object({ kind: z.enum(['error', 'string']) }),
        execute: ({ kind }) => {
          if (kind === 'error') throw new Error('disk on fire');
          throw 'kaboom';
        },
      }),
    );
    const unknown = await tools.execute({ name: 'nope', arguments: '{}' }, { seams });
    expect(unknown.isError && unknown.error).toEqual({
      code: 'UNKNOWN_TOOL',
      message: 'Unknown tool "nope"',
    });
    const invalid = await tools.execute({ name: 'echo', arguments: '{"text": 42}' }, { seams });
    expect(invalid.isError && invalid.error.message).toMatchInlineSnapshot(
      `"Invalid arguments for tool "echo": Invalid input: expected string at "text", received 42"`,
    );
    const thrown = await tools.execute({ name: 'boom', arguments: '{"kind":"error"}' }, { seams });
    expect(thrown.isError && thrown.error).toEqual({ code: 'TOOL_FAILED', message: 'disk on fire' });
    expect(thrown.content).toEqual([{ type: 'text', text: 'Error: disk on fire' }]);
    const nonError = await tools.execute({ name: 'boom', arguments: '{"kind":"string"}' }, { seams });
    expect(nonError.isError && nonError.error).toEqual({ code: 'TOOL_FAILED', message: 'kaboom' });
  });

  it('T06 via tools.execute the arguments are deep-frozen, identical everywhere, and the caller object is untouched', async () => {
    const { tools, seams } = createFixture();
    const seen: ToolExecution['arguments'][] = [];
    tools.register(
      defineTool({
        name: 'nested',
        description: 'x',
        parameters: z.object({ a: z.object({ b: z.array(z.number()) }) }),
        execute: (_args, exec) => {
          seen.push(exec.arguments);
          return 'ok';
        },
      }),
    );
    seams.on('tools/pre-execute', (exec, next) => {
      seen.push(exec.arguments);
      return next();
    });
    seams.on('tools/post-execute', ({ exec }, next) => {
      seen.push(exec.arguments);
      return next();
    });
    const mine = { a: { b: [1, 2] } };
    await tools.execute({ name: 'nested', arguments: mine }, { seams });
    expect(seen).toHaveLength(3);
    for (const args of seen) expect(args).toEqual({ a: { b: [1, 2] } });
    expect(new Set(seen).size).toBe(1);
    expect(Object.isFrozen(seen[0])).toBe(true);
    expect(Object.isFrozen((seen[0] as { a: { b: number[] } }).a.b)).toBe(true);
    expect(seen[0]).not.toBe(mine);
    expect(Object.isFrozen(mine) || Object.isFrozen(mine.a)).toBe(false);
    mine.a.b.push(3);
    expect(seen[0]).toEqual({ a: { b: [1, 2] } });
  });

  it('T07 a wrapper short-circuits with a success: the body does not run; content is re-rendered', async () => {
    const { tools, seams } = createFixture();
    const body = vi.fn(() => 0);
    tools.register(
      defineTool({
        name: 'count',
        description: 'x',
        parameters: z.object({}),
        output: { schema: z.number(), render: (value) => [{ type: 'text', text: `count=${value}` }] },
        execute: body,
      }),
    );
    seams.on('tools/execute', () => ({
      isError: false,
      value: 7,
      content: [{ type: 'text', text: 'ignored authored content' }],
    }));
    const result = await tools.execute({ name: 'count', arguments: '{}' }, { seams });
    expect(body).not.toHaveBeenCalled();
    expect(result).toEqual({ isError: false, value: 7, content: [{ type: 'text', text: 'count=7' }] });
  });

  it('T08 next({ signal }) reaches the body; post-execute sees the call signal again', async () => {
    const { tools, seams } = createFixture();
    const replaced = new AbortController().signal;
    let bodySignal: AbortSignal | undefined;
    let preSignal: AbortSignal | undefined;
    let postSignal: AbortSignal | undefined;
    tools.register(
      defineTool({
        name: 'sig',
        description: 'x',
        parameters: z.object({}),
        execute: (_args, exec) => {
          bodySignal = exec.signal;
          return 'ok';
        },
      }),
    );
    seams.on('tools/pre-execute', (exec, next) => {
      preSignal = exec.signal;
      return next();
    });
    seams.on('tools/execute', (_exec, next) => next({ signal: replaced }));
    seams.on('tools/post-execute', ({ exec }, next) => {
      postSignal = exec.signal;
      return next();
    });
    await tools.execute({ name: 'sig', arguments: '{}' }, { seams });
    expect(bodySignal).toBe(replaced);
    expect(postSignal).toBeDefined();
    expect(postSignal).toBe(preSignal);
    expect(postSignal).not.toBe(replaced);
  });
});

describe('post-execute, finalize and tools/result', () => {
  const counter = defineTool({
    name: 'counter',
    description: 'x',
    parameters: z.object({}),
    output: { schema: z.number(), render: (value) => [{ type: 'text', text: `n=${value}` }] },
    execute: (_args, exec) => {
      exec.deferContext(textContext('deferred'));
      return 1;
    },
  });

  it('T09 accept{content} keeps the value; accept{value} re-validates and re-renders', async () => {
    const { tools, seams } = createFixture();
    tools.register(counter);
    let mode = 'content';
    seams.on('tools/post-execute', () =>
      mode === 'content'
        ? { kind: 'accept', content: [{ type: 'text', text: 'redacted' }] }
        : mode === 'value'
          ? { kind: 'accept', value: 2 }
          : { kind: 'accept', value: 'two' },
    );
    const content = await tools.execute({ name: 'counter', arguments: '{}' }, { seams });
    expect(content).toMatchObject({
      isError: false,
      value: 1,
      content: [{ type: 'text', text: 'redacted' }],
    });
    mode = 'value';
    const value = await tools.execute({ name: 'counter', arguments: '{}' }, { seams });
    expect(value).toMatchObject({ isError: false, value: 2, content: [{ type: 'text', text: 'n=2' }] });
    mode = 'invalid';
    const invalid = await tools.execute({ name: 'counter', arguments: '{}' }, { seams });
    expect(invalid.isError && invalid.error).toMatchInlineSnapshot(`
      {
        "code": "INVALID_TOOL_OUTPUT",
        "message": "Tool "counter" returned invalid output: Invalid input: expected number, received "two"",
      }
    `);
  });

  it('T09 accept with both content and value, and accept{value} on a failure, are pipeline errors', async () => {
    const { tools, seams } = createFixture();
    tools.register(counter);
    seams.on('tools/post-execute', () => ({ kind: 'accept', value: 3, content: [] }) as never);
    const both = await tools.execute({ name: 'counter', arguments: '{}' }, { seams });
    expect(both.isError && both.error.code).toBe('PIPELINE_ERROR');
    expect(both.isError && both.error.message).toContain('tools/post-execute');

    const { tools: tools2, seams: seams2 } = createFixture();
    seams2.on('tools/post-execute', () => ({ kind: 'accept', value: 'forced' }));
    const onFailure = await tools2.execute({ name: 'nope', arguments: '{}' }, { seams: seams2 });
    expect(onFailure.isError && onFailure.error).toMatchInlineSnapshot(`
      {
        "code": "PIPELINE_ERROR",
        "message": "tools/post-execute cannot replace the value of a failed result (UNKNOWN_TOOL); block it instead",
      }
    `);
  });

  it('T10 block: BLOCKED with the feedback as content; deferred contexts dropped; pre and block contexts kept', async () => {
    const { tools, seams } = createFixture();
    tools.register(counter);
    seams.on('tools/pre-execute', () => ({ kind: 'allow', additionalContexts: [textContext('pre')] }));
    seams.on('tools/post-execute', () => ({
      kind: 'block',
      feedback: [{ type: 'text', text: 'the number is secret' }],
      additionalContexts: [textContext('block')],
    }));
    const result = await tools.execute({ name: 'counter', arguments: '{}' }, { seams });
    expect(result).toEqual({
      isError: true,
      error: { code: 'BLOCKED', message: 'the number is secret' },
      content: [{ type: 'text', text: 'the number is secret' }],
      additionalContexts: [textContext('pre'), textContext('block')],
    });
    expect('value' in result).toBe(false);
  });

  it('contexts come in order: pre-execute decision, body-deferred, post-execute decision', async () => {
    const { tools, seams } = createFixture();
    tools.register(counter);
    seams.on('tools/pre-execute', () => ({ kind: 'allow', additionalContexts: [textContext('pre')] }));
    seams.on('tools/post-execute', () => ({ kind: 'accept', additionalContexts: [textContext('post')] }));
    const result = await tools.execute({ name: 'counter', arguments: '{}' }, { seams });
    expect(result.additionalContexts?.map((c) => c.content[0])).toEqual([
      { type: 'text', text: 'pre' },
      { type: 'text', text: 'deferred' },
      { type: 'text', text: 'post' },
    ]);
  });

  it('T11 finalizeContent replaces the content of a success and of a denial; a throw is final', async () => {
    const { tools, seams } = createFixture();
    const finalize = vi.fn((_exec: ToolExecution, result: ToolResult) => [
      { type: 'text' as const, text: `final:${result.isError ? result.error.code : result.value}` },
    ]);
    tools.register(
      defineTool({
        name: 'fin',
        description: 'x',
        parameters: z.object({}),
        execute: () => 'v',
        finalizeContent: finalize,
      }),
    );
    const success = await tools.execute({ name: 'fin', arguments: '{}' }, { seams });
    expect(success).toMatchObject({
      isError: false,
      value: 'v',
      content: [{ type: 'text', text: 'final:v' }],
    });
    const deny = seams.on('tools/pre-execute', () => ({ kind: 'deny', reason: 'no' }));
    const denied = await tools.execute({ name: 'fin', arguments: '{}' }, { seams });
    expect(denied).toMatchObject({
      error: { code: 'DENIED' },
      content: [{ type: 'text', text: 'final:DENIED' }],
    });
    deny();

    const throwing = vi.fn(() => {
      throw new Error('too long');
    });
    tools.register(
      defineTool({
        name: 'bad',
        description: 'x',
        parameters: z.object({}),
        execute: () => 'v',
        finalizeContent: throwing,
      }),
    );
    const failed = await tools.execute({ name: 'bad', arguments: '{}' }, { seams });
    expect(throwing).toHaveBeenCalledTimes(1);
    expect(failed.isError && failed.error).toEqual({
      code: 'PIPELINE_ERROR',
      message: 'finalizeContent of tool "bad" threw: too long',
    });
  });

  it('T12 tools/result observers see the frozen final result; a throwing observer changes nothing', async () => {
    const { tools, seams, logger } = createFixture();
    const seen: ToolResult[] = [];
    seams.on('tools/result', () => {
      throw new Error('observer broke');
    });
    seams.on('tools/result', ({ result }) => {
      seen.push(result);
    });
    const result = await tools.execute(call('x'), { seams });
    expect(result).toEqual({ isError: false, value: 'x', content: [{ type: 'text', text: 'x' }] });
    expect(seen).toEqual([result]);
    expect(seen[0]).toBe(result);
    expect(Object.isFrozen(result) && Object.isFrozen(result.content[0])).toBe(true);
    expect(logger.errors.join('\n')).toContain('observer broke');
  });

  it('T15 standalone runs the whole pipeline; pre-execute contexts ride on the result, also on deny', async () => {
    const { tools, seams } = createFixture();
    const phases: string[] = [];
    seams.on('tools/pre-execute', (exec) => {
      phases.push('pre');
      return exec.arguments && (exec.arguments as { text: string }).text === 'no'
        ? { kind: 'deny', reason: 'said no', additionalContexts: [textContext('why')] }
        : { kind: 'allow', additionalContexts: [textContext('fyi')] };
    });
    seams.guard(() => {
      phases.push('guard');
      return undefined;
    });
    seams.on('tools/execute', (_exec, next) => {
      phases.push('execute');
      return next();
    });
    seams.on('tools/post-execute', (_ctx, next) => {
      phases.push('post');
      return next();
    });
    seams.on('tools/result', () => void phases.push('result'));
    const allowed = await tools.execute(call('yes'), { seams });
    expect(phases).toEqual(['pre', 'guard', 'execute', 'post', 'result']);
    expect(allowed).toEqual({
      isError: false,
      value: 'yes',
      content: [{ type: 'text', text: 'yes' }],
      additionalContexts: [textContext('fyi')],
    });
    const denied = await tools.execute(call('no'), { seams });
    expect(denied.isError && denied.additionalContexts).toEqual([textContext('why')]);
  });
});

describe('bad input becomes a typed result', () => {
  it('arguments that are not plain JSON fail with INVALID_ARGS before any policy', async () => {
    const { tools, seams } = createFixture();
    const pre = vi.fn((_exec, next) => next());
    seams.on('tools/pre-execute', pre);
    const cyclic: Record<string, unknown> = { text: 'x' };
    cyclic.self = cyclic;
    const results = await Promise.all(
      [{ text: () => 1 }, cyclic, { text: new Date(0) }, { n: Number.NaN }, { n: -0 }, { u: undefined }].map(
        (args) => tools.execute({ name: 'echo', arguments: args }, { seams }),
      ),
    );
    expect(pre).not.toHaveBeenCalled();
    expect(results.map((r) => r.isError && r.error.message)).toMatchInlineSnapshot(`
      [
        "Arguments are not plain JSON: a function at "arguments.text"",
        "Arguments are not plain JSON: a cycle at "arguments.self"",
        "Arguments are not plain JSON: an instance of Date at "arguments.text"",
        "Arguments are not plain JSON: NaN at "arguments.n"",
        "Arguments are not plain JSON: -0 at "arguments.n"",
        "Arguments are not plain JSON: undefined at "arguments.u"",
      ]
    `);
  });

  it('argument text that is not JSON stays a string and fails validation with INVALID_ARGS', async () => {
    const { tools, seams } = createFixture();
    let seen: unknown;
    seams.on('tools/pre-execute', (exec, next) => {
      seen = exec.arguments;
      return next();
    });
    const result = await tools.execute({ name: 'echo', arguments: '{"text": "unterminated' }, { seams });
    expect(seen).toBe('{"text": "unterminated');
    expect(result.isError && result.error).toMatchInlineSnapshot(`
      {
        "code": "INVALID_ARGS",
        "message": "Invalid arguments for tool "echo": the arguments are not valid JSON text",
      }
    `);
    const empty = await tools.execute({ name: 'echo', arguments: '' }, { seams });
    expect(empty.isError && empty.error.message).toContain('expected string at "text"');
  });

  it('a listener returning garbage is a PIPELINE_ERROR naming the seam and listener', async () => {
    const { tools, seams } = createFixture();
    seams.on('tools/pre-execute', () => ({ kind: 'maybe' }) as never, { name: 'wobbly' });
    const result = await tools.execute(call(), { seams });
    expect(result.isError && result.error.code).toBe('PIPELINE_ERROR');
    expect(result.isError && result.error.message).toContain('Listener "wobbly" on seam "tools/pre-execute"');
  });

  it('a tool returning a value that is not JSON gives INVALID_TOOL_OUTPUT', async () => {
    const { tools, seams } = createFixture();
    tools.register(
      defineTool({
        name: 'map',
        description: 'x',
        parameters: z.object({}),
        execute: () => new Map() as never,
      }),
    );
    tools.register(
      defineTool({
        name: 'void',
        description: 'x',
        parameters: z.object({}),
        execute: () => undefined as never,
      }),
    );
    const map = await tools.execute({ name: 'map', arguments: '{}' }, { seams });
    const none = await tools.execute({ name: 'void', arguments: '{}' }, { seams });
    expect([map, none].map((r) => r.isError && r.error)).toMatchInlineSnapshot(`
      [
        {
          "code": "INVALID_TOOL_OUTPUT",
          "message": "Tool "map" returned a value that is not plain JSON: an instance of Map at "value"",
        },
        {
          "code": "INVALID_TOOL_OUTPUT",
          "message": "Tool "void" returned a value that is not plain JSON: undefined at "value" (return null for "no value")",
        },
      ]
    `);
  });

  it('a wrapper that throws is a PIPELINE_ERROR and post-execute is skipped', async () => {
    const { tools, seams } = createFixture();
    const post = vi.fn((_ctx, next) => next());
    seams.on('tools/execute', () => {
      throw new Error('wrapper broke');
    });
    seams.on('tools/post-execute', post);
    const result = await tools.execute(call(), { seams });
    expect(post).not.toHaveBeenCalled();
    expect(result.isError && result.error.code).toBe('PIPELINE_ERROR');
  });

  it('a wrapper may author a failure result; it reaches post-execute as is', async () => {
    const { tools, seams } = createFixture();
    seams.on('tools/execute', () => createFailureResult('TOOL_FAILED', 'cached failure'));
    const result = await tools.execute(call(), { seams });
    expect(result.isError && result.error).toEqual({ code: 'TOOL_FAILED', message: 'cached failure' });
  });
});
