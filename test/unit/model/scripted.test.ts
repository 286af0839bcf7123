import { describe, expect, it } from 'vitest';
import {
  type ModelMessage,
  type ModelRequest,
  ModelRequestError,
  scriptedModel,
} from '../../../model/index.js';

function userRequest(text = 'hi', signal = new AbortController().signal): ModelRequest {
  return { messages: [{ role: 'user', content: [{ type: 'text', text }] }], tools: [], signal };
}

async function rejection(promise: Promise<unknown>): Promise<ModelRequestError> {
  const error = await promise.then(
    () => expect.fail('expected the request to reject'),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ModelRequestError);
  return error as ModelRequestError;
}

describe('scriptedModel replies', () => {
  it('answers a text step with one text block finished by stop', async () => {
    const model = scriptedModel([{ text: 'hello' }]);

    expect(await model.request(userRequest())).toEqual({
      content: [{ type: 'text', text: 'hello' }],
      finish: 'stop',
    });
  });

  it('answers a tool-call step with the text, then each call with object arguments as JSON and raw strings as is', async () => {
    const model = scriptedModel([
      {
        text: 'calling',
        toolCalls: [
          { id: 'c1', name: 'echo', arguments: { text: 'a' } },
          { id: 'c2', name: 'echo', arguments: '{"text": broken' },
        ],
      },
    ]);

    expect(await model.request(userRequest())).toEqual({
      content: [
        { type: 'text', text: 'calling' },
        { type: 'tool-call', id: 'c1', name: 'echo', arguments: '{"text":"a"}' },
        { type: 'tool-call', id: 'c2', name: 'echo', arguments: '{"text": broken' },
      ],
      finish: 'tool-calls',
    });
  });

  it('answers a tool-call step without text with tool-call blocks only', async () => {
    const model = scriptedModel([{ toolCalls: [{ id: 'c1', name: 'read', arguments: {} }] }]);

    expect(await model.request(userRequest())).toEqual({
      content: [{ type: 'tool-call', id: 'c1', name: 'read', arguments: '{}' }],
      finish: 'tool-calls',
    });
  });

  it('answers with the finish the step names, such as max-tokens', async () => {
    const model = scriptedModel([{ text: 'partial', finish: 'max-tokens' }]);

    expect(await model.request(userRequest())).toEqual({
      content: [{ type: 'text', text: 'partial' }],
      finish: 'max-tokens',
    });
  });

  it('puts reasoning before the text and passes usage through', async () => {
    const model = scriptedModel([
      { reasoning: 'think', text: 'answer', usage: { inputTokens: 3, outputTokens: 2 } },
    ]);

    expect(await model.request(userRequest())).toEqual({
      content: [
        { type: 'reasoning', text: 'think' },
        { type: 'text', text: 'answer' },
      ],
      finish: 'stop',
      usage: { inputTokens: 3, outputTokens: 2 },
    });
  });

  it('answers the steps in order, one per request', async () => {
    const model = scriptedModel([{ text: 'one' }, { text: 'two' }]);

    const first = await model.request(userRequest());
    const second = await model.request(userRequest());

    expect([first.content, second.content]).toEqual([
      [{ type: 'text', text: 'one' }],
      [{ type: 'text', text: 'two' }],
    ]);
  });
});

describe('scriptedModel failures', () => {
  it('rejects an error step with a ModelRequestError carrying its message and code', async () => {
    const model = scriptedModel([{ error: { message: 'overloaded', code: 'RATE_LIMIT' } }]);

    const error = await rejection(model.request(userRequest()));

    expect({ message: error.message, code: error.code }).toEqual({
      message: 'overloaded',
      code: 'RATE_LIMIT',
    });
  });

  it('rejects SCRIPT_EXHAUSTED once the requests outnumber the steps', async () => {
    const model = scriptedModel([{ text: 'only' }]);
    await model.request(userRequest());

    const error = await rejection(model.request(userRequest()));

    expect(error.code).toBe('SCRIPT_EXHAUSTED');
    expect(error.message).toMatchInlineSnapshot(
      `"The model script ran out: request 2 found no step at index 1 (the script has 1); add one step per model request"`,
    );
  });

  it('keeps a hang step pending until the signal aborts, then rejects ABORTED', async () => {
    const controller = new AbortController();
    const model = scriptedModel([{ hang: true }]);
    let settled = false;
    const pending = model.request(userRequest('hi', controller.signal)).finally(() => {
      settled = true;
    });

    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(settled).toBe(false);
    controller.abort();

    expect((await rejection(pending)).code).toBe('ABORTED');
  });

  it('answers a delayed step only after its delay', async () => {
    const model = scriptedModel([{ delayMs: 40, text: 'late' }]);
    const startedAt = performance.now();

    const step = await model.request(userRequest());

    expect(step.content).toEqual([{ type: 'text', text: 'late' }]);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(35);
  });

  it('rejects ABORTED as soon as the signal aborts during a delay', async () => {
    const controller = new AbortController();
    const model = scriptedModel([{ delayMs: 10_000, text: 'never' }]);
    const pending = model.request(userRequest('hi', controller.signal));
    const abortedAt = performance.now();

    controller.abort();

    expect((await rejection(pending)).code).toBe('ABORTED');
    expect(performance.now() - abortedAt).toBeLessThan(1_000);
  });

  it('rejects ABORTED when the signal is already aborted, and still consumes the step', async () => {
    const controller = new AbortController();
    controller.abort();
    const model = scriptedModel([{ text: 'skipped' }, { text: 'next' }]);

    expect((await rejection(model.request(userRequest('hi', controller.signal)))).code).toBe('ABORTED');
    expect((await model.request(userRequest())).content).toEqual([{ type: 'text', text: 'next' }]);
  });
});

describe('scriptedModel requests', () => {
  it('records each request’s messages and tools, including failed ones, without the signal', async () => {
    const model = scriptedModel([{ text: 'a' }, { error: { message: 'down' } }]);
    const tools = [{ name: 'echo', description: 'Echoes', parameters: { type: 'object' } }];

    await model.request({ ...userRequest('first'), tools });
    await rejection(model.request(userRequest('second')));

    expect(model.requests).toEqual([
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'first' }] }], tools },
      { messages: [{ role: 'user', content: [{ type: 'text', text: 'second' }] }], tools: [] },
    ]);
    expect(model.requests[0]).not.toHaveProperty('signal');
  });

  it('keeps the recorded messages as they were when the caller later grows its array', async () => {
    const model = scriptedModel([{ text: 'a' }]);
    const messages: ModelMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'first' }] }];

    await model.request({ messages, tools: [], signal: new AbortController().signal });
    messages.push({ role: 'user', content: [{ type: 'text', text: 'later' }] });

    expect(model.requests[0]?.messages).toHaveLength(1);
  });
});
