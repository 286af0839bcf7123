import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type ModelRequest, ModelRequestError, openAICompatible } from '../../../model/index.js';
import { beginStream, chunk, sse, useChatServers, writeSeparately } from './chatServer.js';

const serve = useChatServers();

function userRequest(signal = new AbortController().signal): ModelRequest {
  return { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [], signal };
}

/** Runs one request and returns its rejection (fails the test if it resolves). */
async function requestFailure(baseURL: string, request = userRequest()): Promise<ModelRequestError> {
  const model = openAICompatible({ baseURL, apiKey: 'sk-test', model: 'test-model' });
  const error = await model.request(request).then(
    () => expect.fail('expected the request to reject'),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ModelRequestError);
  return error as ModelRequestError;
}

function failure(error: ModelRequestError): { code: string | undefined; message: string } {
  return { code: error.code, message: error.message };
}

describe('openAICompatible HTTP failures', () => {
  it('turns a 429 into RATE_LIMIT with the server error message', async () => {
    const server = await serve((res) => {
      res.writeHead(429, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Rate limit reached for requests', type: 'requests' } }));
    });

    expect(failure(await requestFailure(server.baseURL))).toEqual({
      code: 'RATE_LIMIT',
      message: 'Rate limit reached for requests',
    });
  });

  it('turns a 401 into AUTH', async () => {
    const server = await serve((res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Incorrect API key provided' } }));
    });

    expect(failure(await requestFailure(server.baseURL))).toEqual({
      code: 'AUTH',
      message: 'Incorrect API key provided',
    });
  });

  it('turns a 500 with a non-JSON body into HTTP_500 naming the status', async () => {
    const server = await serve((res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<html>upstream exploded</html>');
    });

    const error = await requestFailure(server.baseURL);

    expect(error.code).toBe('HTTP_500');
    expect(error.message).toBe(
      `The model server at ${server.baseURL}/chat/completions answered HTTP 500 Internal Server Error`,
    );
  });

  it('turns a 503 with an error body into HTTP_503 with the server message', async () => {
    const server = await serve((res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Service overloaded' } }));
    });

    expect(failure(await requestFailure(server.baseURL))).toEqual({
      code: 'HTTP_503',
      message: 'Service overloaded',
    });
  });

  it('turns an unreachable server into NETWORK', async () => {
    // A port that was just free: nothing listens there any more.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const error = await requestFailure(`http://127.0.0.1:${port}/v1`);

    expect(error.code).toBe('NETWORK');
    expect(error.message).toContain(
      `Could not reach the model server at http://127.0.0.1:${port}/v1/chat/completions`,
    );
  });
});

describe('openAICompatible stream failures', () => {
  it('rejects STREAM_INTERRUPTED when the connection is destroyed mid-stream', async () => {
    const server = await serve(async (res) => {
      beginStream(res);
      await writeSeparately(res, [sse(chunk({ content: 'Hel' }))]);
      res.socket?.destroy();
    });

    expect((await requestFailure(server.baseURL)).code).toBe('STREAM_INTERRUPTED');
  });

  it('rejects STREAM_INTERRUPTED when the stream ends without [DONE] or a finish_reason', async () => {
    const server = await serve(async (res) => {
      beginStream(res);
      await writeSeparately(res, [sse(chunk({ content: 'Hel' }))]);
      res.end();
    });

    expect(failure(await requestFailure(server.baseURL))).toEqual({
      code: 'STREAM_INTERRUPTED',
      message: 'The model stream ended before [DONE] or a finish_reason',
    });
  });

  it('rejects INVALID_RESPONSE on a data line that is not JSON', async () => {
    const server = await serve(async (res) => {
      beginStream(res);
      await writeSeparately(res, [sse(chunk({ content: 'Hel' })), 'data: {not json\n\n']);
      // The connection stays open: the adapter must stop on the bad line, not wait for the end.
    });

    expect(failure(await requestFailure(server.baseURL))).toEqual({
      code: 'INVALID_RESPONSE',
      message: 'The model stream sent a data line that is not JSON: {not json',
    });
  });

  it('rejects PROVIDER_ERROR when the server reports an error inside the stream', async () => {
    const server = await serve(async (res) => {
      beginStream(res);
      await writeSeparately(res, [
        sse({ error: { message: 'context length exceeded', code: 'context_length' } }),
      ]);
      res.end();
    });

    expect(failure(await requestFailure(server.baseURL))).toEqual({
      code: 'PROVIDER_ERROR',
      message: 'context length exceeded',
    });
  });

  it('rejects ABORTED promptly when the signal aborts while the server keeps streaming open', async () => {
    let firstChunkSent!: () => void;
    const streaming = new Promise<void>((resolve) => {
      firstChunkSent = resolve;
    });
    let connectionClosed: Promise<void> | undefined;
    const server = await serve(async (res, { closed }) => {
      connectionClosed = closed;
      beginStream(res);
      await writeSeparately(res, [sse(chunk({ content: 'Hel' }))]);
      firstChunkSent();
    });
    const controller = new AbortController();
    const pending = requestFailure(server.baseURL, userRequest(controller.signal));

    await streaming;
    const abortedAt = performance.now();
    controller.abort(new Error('user cancelled'));
    const error = await pending;

    expect(failure(error)).toEqual({ code: 'ABORTED', message: 'The model request was aborted' });
    expect(performance.now() - abortedAt).toBeLessThan(500);
    await connectionClosed; // the adapter hung up instead of leaving the stream open
  });

  it('rejects ABORTED when the signal aborts before the server sends its headers', async () => {
    let requestArrived!: () => void;
    const arrived = new Promise<void>((resolve) => {
      requestArrived = resolve;
    });
    const server = await serve(() => {
      requestArrived(); // and never answer
    });
    const controller = new AbortController();
    const pending = requestFailure(server.baseURL, userRequest(controller.signal));

    await arrived;
    controller.abort();

    expect((await pending).code).toBe('ABORTED');
  });

  it('rejects ABORTED without contacting the server when the signal is already aborted', async () => {
    const server = await serve((res) => {
      res.end();
    });
    const controller = new AbortController();
    controller.abort();

    expect((await requestFailure(server.baseURL, userRequest(controller.signal))).code).toBe('ABORTED');
    expect(server.received).toHaveLength(0);
  });
});

describe('openAICompatible options', () => {
  const base = { baseURL: 'http://127.0.0.1:1/v1', apiKey: 'k', model: 'm' };

  it('throws a TypeError naming a missing baseURL', () => {
    expect(() =>
      openAICompatible({ ...base, baseURL: undefined as never }),
    ).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: openAICompatible: expected the \`baseURL\` option to be an http(s) URL such as \`https://api.openai.com/v1\`, got \`undefined\` (undefined)]`,
    );
  });

  it('throws a TypeError naming a baseURL that is not a URL', () => {
    expect(() =>
      openAICompatible({ ...base, baseURL: 'api.example.com' }),
    ).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: openAICompatible: expected the \`baseURL\` option to be an http(s) URL such as \`https://api.openai.com/v1\`, got \`"api.example.com"\` (string)]`,
    );
  });

  it('throws a TypeError naming an empty model', () => {
    expect(() => openAICompatible({ ...base, model: '' })).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: openAICompatible: expected the \`model\` option to be a non-empty string, got \`""\` (string)]`,
    );
  });

  it('throws a TypeError naming a non-string apiKey', () => {
    expect(() => openAICompatible({ ...base, apiKey: 42 as never })).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: openAICompatible: expected the \`apiKey\` option to be a string (may be empty), got \`42\` (number)]`,
    );
  });

  it('throws a TypeError naming headers with a non-string value', () => {
    expect(() =>
      openAICompatible({ ...base, headers: { 'x-retries': 3 } as never }),
    ).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: openAICompatible: expected the \`headers\` option to be an object of string values, got \`{"x-retries":3}\` (object)]`,
    );
  });
});
