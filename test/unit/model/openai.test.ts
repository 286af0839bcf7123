import { describe, expect, it } from 'vitest';
import { type ModelRequest, openAICompatible } from '../../../model/index.js';
import { beginStream, type ChatServer, chunk, sse, useChatServers, writeSeparately } from './chatServer.js';

const serve = useChatServers();

function createModel(server: ChatServer) {
  return openAICompatible({ baseURL: server.baseURL, apiKey: 'sk-test', model: 'test-model' });
}

function userRequest(text = 'hi'): ModelRequest {
  return {
    messages: [{ role: 'user', content: [{ type: 'text', text }] }],
    tools: [],
    signal: new AbortController().signal,
  };
}

describe('openAICompatible streaming', () => {
  it('joins text deltas that arrive in several chunks into one text block finished by stop', async () => {
    const server = await serve(async (res) => {
      beginStream(res);
      const second = sse(chunk({ content: ', wor' }));
      await writeSeparately(res, [
        sse(chunk({ role: 'assistant', content: 'Hel' })),
        sse(chunk({ content: 'lo' })),
        // One event split across two writes: the SSE parser must buffer it.
        second.slice(0, 10),
        second.slice(10),
        sse(chunk({ content: 'ld' }, 'stop')),
        sse('[DONE]'),
      ]);
      res.end();
    });

    const step = await createModel(server).request(userRequest());

    expect(step).toEqual({ content: [{ type: 'text', text: 'Hello, world' }], finish: 'stop' });
  });

  it('aggregates two tool calls whose deltas interleave by index, in index order after the text', async () => {
    const server = await serve(async (res) => {
      beginStream(res);
      await writeSeparately(res, [
        sse(chunk({ content: 'calling' })),
        sse(
          chunk({
            tool_calls: [
              { index: 0, id: 'call_a', type: 'function', function: { name: 'read', arguments: '' } },
            ],
          }),
        ),
        sse(
          chunk({
            tool_calls: [
              { index: 1, id: 'call_b', type: 'function', function: { name: 'echo', arguments: '{"te' } },
            ],
          }),
        ),
        sse(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] })),
        sse(chunk({ tool_calls: [{ index: 1, function: { arguments: 'xt":"b"}' } }] })),
        sse(chunk({ tool_calls: [{ index: 0, function: { arguments: '"a.txt"}' } }] })),
        sse(chunk({}, 'tool_calls')),
        sse('[DONE]'),
      ]);
      res.end();
    });

    const step = await createModel(server).request(userRequest());

    expect(step).toEqual({
      content: [
        { type: 'text', text: 'calling' },
        { type: 'tool-call', id: 'call_a', name: 'read', arguments: '{"path":"a.txt"}' },
        { type: 'tool-call', id: 'call_b', name: 'echo', arguments: '{"text":"b"}' },
      ],
      finish: 'tool-calls',
    });
  });

  it('puts DeepSeek reasoning_content in a reasoning block before the text and reports usage', async () => {
    const server = await serve(async (res) => {
      beginStream(res);
      await writeSeparately(res, [
        sse(chunk({ role: 'assistant', content: null, reasoning_content: 'Think' })),
        sse(chunk({ content: null, reasoning_content: 'ing.' })),
        sse(chunk({ content: 'Answer', reasoning_content: null }, 'stop')),
        sse({
          id: 'chatcmpl-1',
          choices: [],
          usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
        }),
        sse('[DONE]'),
      ]);
      res.end();
    });

    const step = await createModel(server).request(userRequest());

    expect(step).toEqual({
      content: [
        { type: 'reasoning', text: 'Thinking.' },
        { type: 'text', text: 'Answer' },
      ],
      finish: 'stop',
      usage: { inputTokens: 12, outputTokens: 7 },
    });
  });

  it('maps finish_reason length to max-tokens', async () => {
    const server = await serve(async (res) => {
      beginStream(res);
      await writeSeparately(res, [sse(chunk({ content: 'partial' }, 'length')), sse('[DONE]')]);
      res.end();
    });

    const step = await createModel(server).request(userRequest());

    expect(step).toEqual({ content: [{ type: 'text', text: 'partial' }], finish: 'max-tokens' });
  });

  it('keeps an answer whose finish_reason arrived when the connection then drops before [DONE]', async () => {
    const server = await serve(async (res) => {
      beginStream(res);
      await writeSeparately(res, [sse(chunk({ content: 'complete' }, 'stop'))]);
      res.socket?.destroy();
    });

    const step = await createModel(server).request(userRequest());

    expect(step).toEqual({ content: [{ type: 'text', text: 'complete' }], finish: 'stop' });
  });
});

describe('openAICompatible request', () => {
  it('posts the mapped messages, tools, model and stream fields with the bearer token', async () => {
    const server = await serve(async (res) => {
      beginStream(res);
      await writeSeparately(res, [sse(chunk({ content: 'ok' }, 'stop')), sse('[DONE]')]);
      res.end();
    });
    const model = openAICompatible({
      baseURL: `${server.baseURL}/`,
      apiKey: 'sk-test',
      model: 'deepseek-chat',
      headers: { 'X-Trace': 'abc' },
    });

    await model.request({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'read a.txt' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'private thoughts' },
            { type: 'text', text: 'reading' },
            { type: 'tool-call', id: 'c1', name: 'read', arguments: '{"path":"a.txt"}' },
          ],
        },
        { role: 'tool', callId: 'c1', content: [{ type: 'text', text: 'file body' }], isError: false },
        { role: 'user', content: [{ type: 'text', text: 'context' }] },
      ],
      tools: [
        {
          name: 'read',
          description: 'Reads a file',
          parameters: { type: 'object', properties: { path: { type: 'string' } } },
        },
      ],
      signal: new AbortController().signal,
    });

    expect(server.received).toHaveLength(1);
    const [received] = server.received;
    expect(received?.method).toBe('POST');
    expect(received?.path).toBe('/v1/chat/completions');
    expect(received?.headers.authorization).toBe('Bearer sk-test');
    expect(received?.headers['content-type']).toBe('application/json');
    expect(received?.headers['x-trace']).toBe('abc');
    expect(received?.body).toEqual({
      model: 'deepseek-chat',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'user', content: 'read a.txt' },
        {
          role: 'assistant',
          content: 'reading',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'file body' },
        { role: 'user', content: 'context' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'read',
            description: 'Reads a file',
            parameters: { type: 'object', properties: { path: { type: 'string' } } },
          },
        },
      ],
    });
  });

  it('leaves out an empty tools list and sends no Authorization header for an empty apiKey', async () => {
    const server = await serve(async (res) => {
      beginStream(res);
      await writeSeparately(res, [sse(chunk({ content: 'ok' }, 'stop')), sse('[DONE]')]);
      res.end();
    });
    const model = openAICompatible({ baseURL: server.baseURL, apiKey: '', model: 'local' });

    await model.request(userRequest());

    const [received] = server.received;
    expect(received?.headers.authorization).toBeUndefined();
    expect(received?.body).not.toHaveProperty('tools');
  });

  it('sends the request through the fetch option when one is given', async () => {
    const server = await serve(async (res) => {
      beginStream(res);
      await writeSeparately(res, [sse(chunk({ content: 'ok' }, 'stop')), sse('[DONE]')]);
      res.end();
    });
    const fetched: string[] = [];
    const model = openAICompatible({
      baseURL: server.baseURL,
      apiKey: 'k',
      model: 'm',
      fetch: (input, init) => {
        fetched.push(String(input));
        return fetch(input, init);
      },
    });

    await model.request(userRequest());

    expect(fetched).toEqual([`${server.baseURL}/chat/completions`]);
  });
});
