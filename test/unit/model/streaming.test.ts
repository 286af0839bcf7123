import { describe, expect, it } from 'vitest';
import type { ModelDelta } from '../../../kernel/index.js';
import { type ModelRequest, openAICompatible, scriptedModel } from '../../../model/index.js';
import { beginStream, chunk, sse, useChatServers, writeSeparately } from './chatServer.js';

const serve = useChatServers();

function streamingRequest(deltas: ModelDelta[], signal = new AbortController().signal): ModelRequest {
  return {
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    signal,
    onDelta: (delta) => deltas.push(delta),
  };
}

const textOf = (deltas: readonly ModelDelta[], kind: 'text' | 'reasoning') =>
  deltas.map((d) => (d.kind === kind ? d.text : '')).join('');

describe('scriptedModel deltas', () => {
  it('streams a text step in several word chunks that join to the answer', async () => {
    const deltas: ModelDelta[] = [];
    const step = await scriptedModel([{ text: 'Hello there, streaming world' }]).request(
      streamingRequest(deltas),
    );
    expect(deltas).toEqual([
      { kind: 'text', text: 'Hello' },
      { kind: 'text', text: ' there,' },
      { kind: 'text', text: ' streaming' },
      { kind: 'text', text: ' world' },
    ]);
    expect(step.content).toEqual([{ type: 'text', text: 'Hello there, streaming world' }]);
  });

  it('streams the chunks a step names, reasoning first, then each call’s arguments in two pieces', async () => {
    const deltas: ModelDelta[] = [];
    await scriptedModel([
      {
        reasoning: 'think hard',
        text: 'Hello',
        chunks: ['Hel', 'lo'],
        toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'a' } }],
      },
    ]).request(streamingRequest(deltas));
    expect(deltas).toEqual([
      { kind: 'reasoning', text: 'think' },
      { kind: 'reasoning', text: ' hard' },
      { kind: 'text', text: 'Hel' },
      { kind: 'text', text: 'lo' },
      { kind: 'tool-call', index: 0, id: 'c1', name: 'echo', argumentsDelta: '{"text' },
      { kind: 'tool-call', index: 0, argumentsDelta: '":"a"}' },
    ]);
  });

  it('refuses chunks that do not join to the text, naming the step', () => {
    expect(() => scriptedModel([{ text: 'Hello', chunks: ['Hel', 'p'] }])).toThrow(
      'Invalid model script step 0: at `chunks`: Expected the `chunks` of a reply step to join to its `text`',
    );
  });

  it('stops streaming when the signal aborts between chunks, and rejects ABORTED', async () => {
    const controller = new AbortController();
    const deltas: ModelDelta[] = [];
    const request = streamingRequest(deltas, controller.signal);
    const pending = scriptedModel([{ text: 'a b c d', chunkDelayMs: 20 }]).request({
      ...request,
      onDelta: (delta) => {
        deltas.push(delta);
        controller.abort();
      },
    });
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
    expect(deltas).toEqual([{ kind: 'text', text: 'a' }]);
  });

  it('records the instructions and settings each request carried', async () => {
    const model = scriptedModel([{ text: 'a' }, { text: 'b' }], { settings: { temperature: 0.5 } });
    expect(model.settings).toEqual({ temperature: 0.5 });
    await model.request({ ...streamingRequest([]), instructions: 'Be terse.', settings: { seed: 1 } });
    await model.request(streamingRequest([]));
    expect(model.requests.map((r) => [r.instructions, r.settings])).toEqual([
      ['Be terse.', { seed: 1 }],
      [undefined, undefined],
    ]);
  });
});

describe('openAICompatible deltas and usage', () => {
  it('reports text, reasoning and tool-call argument deltas as they arrive; they join to the step', async () => {
    const server = await serve(async (res) => {
      beginStream(res);
      await writeSeparately(res, [
        sse(chunk({ role: 'assistant', reasoning_content: 'Let me ' })),
        sse(chunk({ reasoning_content: 'think.' })),
        sse(chunk({ content: 'Call' })),
        sse(chunk({ content: 'ing' })),
        sse(chunk({ tool_calls: [{ index: 0, id: 'call_a', function: { name: 'echo', arguments: '' } }] })),
        sse(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"text":' } }] })),
        sse(chunk({ tool_calls: [{ index: 0, function: { arguments: '"a"}' } }] })),
        sse(chunk({}, 'tool_calls')),
        sse('[DONE]'),
      ]);
      res.end();
    });
    const deltas: ModelDelta[] = [];
    const model = openAICompatible({ baseURL: server.baseURL, apiKey: '', model: 'm' });
    const step = await model.request(streamingRequest(deltas));
    expect(deltas).toEqual([
      { kind: 'reasoning', text: 'Let me ' },
      { kind: 'reasoning', text: 'think.' },
      { kind: 'text', text: 'Call' },
      { kind: 'text', text: 'ing' },
      { kind: 'tool-call', index: 0, id: 'call_a', name: 'echo', argumentsDelta: '' },
      { kind: 'tool-call', index: 0, argumentsDelta: '{"text":' },
      { kind: 'tool-call', index: 0, argumentsDelta: '"a"}' },
    ]);
    expect(step.content).toEqual([
      { type: 'reasoning', text: textOf(deltas, 'reasoning') },
      { type: 'text', text: textOf(deltas, 'text') },
      { type: 'tool-call', id: 'call_a', name: 'echo', arguments: '{"text":"a"}' },
    ]);
  });

  it('reads reasoning and cached token counts from OpenAI details and DeepSeek cache hits', async () => {
    const usages = [
      {
        prompt_tokens: 30,
        completion_tokens: 12,
        prompt_tokens_details: { cached_tokens: 20 },
        completion_tokens_details: { reasoning_tokens: 8 },
      },
      { prompt_tokens: 30, completion_tokens: 5, prompt_cache_hit_tokens: 16 },
    ];
    let next = 0;
    const server = await serve((res) => {
      beginStream(res);
      res.write(sse(chunk({ content: 'ok' }, 'stop')));
      res.write(sse({ id: 'x', object: 'chat.completion.chunk', choices: [], usage: usages[next++] }));
      res.end(sse('[DONE]'));
    });
    const model = openAICompatible({ baseURL: server.baseURL, apiKey: '', model: 'm' });
    expect((await model.request(streamingRequest([]))).usage).toEqual({
      inputTokens: 30,
      outputTokens: 12,
      reasoningTokens: 8,
      cachedInputTokens: 20,
    });
    expect((await model.request(streamingRequest([]))).usage).toEqual({
      inputTokens: 30,
      outputTokens: 5,
      cachedInputTokens: 16,
    });
  });
});
