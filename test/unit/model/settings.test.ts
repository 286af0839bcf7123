import { describe, expect, it } from 'vitest';
import {
  type ModelRequest,
  mergeModelSettings,
  openAICompatible,
  parseModelSettings,
  scriptedModel,
} from '../../../model/index.js';
import { settingsForRequest } from '../../../model/settings.js';
import { beginStream, chunk, sse, useChatServers } from './chatServer.js';

const serve = useChatServers();

const echoTool = { name: 'echo', description: 'Echo', parameters: { type: 'object' } };

function request(extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    signal: new AbortController().signal,
    ...extra,
  };
}

async function answeringServer() {
  return serve((res) => {
    beginStream(res);
    res.write(sse(chunk({ content: 'ok' }, 'stop')));
    res.end(sse('[DONE]'));
  });
}

describe('model settings', () => {
  it('refuses an unknown setting with a TypeError listing the known ones', () => {
    expect(() => parseModelSettings({ temprature: 1 }, 'createAgent() option `modelSettings`')).toThrow(
      'Expected the createAgent() option `modelSettings` to have only known settings (temperature, topP, maxOutputTokens, stop, seed, toolChoice, parallelToolCalls, resetToolChoice, extra), got unknown `temprature`',
    );
    expect(() =>
      openAICompatible({ baseURL: 'http://x/v1', apiKey: '', model: 'm', settings: { topK: 3 } as never }),
    ).toThrow(TypeError);
    expect(() => scriptedModel([], { settings: { temperature: 'hot' } as never })).toThrow(
      /setting `temperature` to be valid .*got `"hot"` \(string\)/,
    );
  });

  it('merges later layers key by key, extra objects too', () => {
    expect(
      mergeModelSettings(
        { temperature: 0.2, seed: 1, extra: { a: 1, b: 2 } },
        { temperature: 0.7, extra: { b: 3 } },
      ),
    ).toEqual({ temperature: 0.7, seed: 1, extra: { a: 1, b: 3 } });
  });

  it('resets a forcing tool choice once the turn has an answer, unless resetToolChoice is false', () => {
    expect(settingsForRequest({ toolChoice: 'required' }, false)).toEqual({ toolChoice: 'required' });
    expect(settingsForRequest({ toolChoice: { name: 'echo' } }, true)).toEqual({ toolChoice: 'auto' });
    expect(settingsForRequest({ toolChoice: 'none' }, true)).toEqual({ toolChoice: 'none' });
    expect(settingsForRequest({ toolChoice: 'required', resetToolChoice: false }, true)).toMatchObject({
      toolChoice: 'required',
    });
  });
});

describe('openAICompatible instructions and settings on the wire', () => {
  it('sends the instructions as the first system message', async () => {
    const server = await answeringServer();
    const model = openAICompatible({ baseURL: server.baseURL, apiKey: '', model: 'm' });
    await model.request(request({ instructions: 'You are terse.' }));
    await model.request(request({ instructions: '' }));
    const [withSystem, without] = server.received.map((r) => (r.body as { messages: unknown[] }).messages);
    expect(withSystem).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'hi' },
    ]);
    expect(without).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('maps the adapter settings merged with the request’s to body fields, extra under them', async () => {
    const server = await answeringServer();
    const model = openAICompatible({
      baseURL: server.baseURL,
      apiKey: '',
      model: 'm',
      settings: { temperature: 0.1, maxOutputTokens: 100, extra: { reasoning_effort: 'low', top_p: 0.3 } },
    });
    await model.request(
      request({
        tools: [echoTool],
        settings: {
          temperature: 0.9,
          topP: 0.5,
          stop: ['END'],
          seed: 7,
          toolChoice: { name: 'echo' },
          parallelToolCalls: false,
          extra: { model: 'overridden?' },
        },
      }),
    );
    expect(server.received[0]!.body).toMatchObject({
      model: 'm',
      temperature: 0.9,
      top_p: 0.5,
      max_tokens: 100,
      stop: ['END'],
      seed: 7,
      tool_choice: { type: 'function', function: { name: 'echo' } },
      parallel_tool_calls: false,
      reasoning_effort: 'low',
      stream: true,
    });
  });

  it('leaves tool options out when the request has no tools', async () => {
    const server = await answeringServer();
    const model = openAICompatible({ baseURL: server.baseURL, apiKey: '', model: 'm' });
    await model.request(request({ settings: { toolChoice: 'required', parallelToolCalls: true } }));
    expect(server.received[0]!.body).not.toHaveProperty('tool_choice');
    expect(server.received[0]!.body).not.toHaveProperty('parallel_tool_calls');
  });
});
