import { describe, expect, it } from 'vitest';
import { Seam } from '../../seams/index.js';
import { chunkText, useAcpFixtures } from './harness.js';

const createFixture = useAcpFixtures();

describe('ACP prompts', () => {
  it('A01 initialize → session/new → session/prompt streams agent_message_chunk, then end_turn; the file checks clean', async () => {
    const fixture = createFixture({
      scripts: [
        [{ reasoning: 'greet them', text: 'Hello from seamchart', chunks: ['Hel', 'lo from ', 'seamchart'] }],
      ],
    });
    const init = await fixture.initialize();
    expect(init).toMatchObject({
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: false, audio: false, embeddedContext: false },
        mcpCapabilities: { http: false, sse: false },
      },
      authMethods: [],
      agentInfo: { name: 'seamchart', version: 'test' },
    });
    const sessionId = await fixture.newSession();
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const response = await fixture.prompt(sessionId, 'hi');
    expect(response).toEqual({ stopReason: 'end_turn' });
    // The text streamed as the model sent it (model/delta), every chunk before the response, none twice.
    expect(fixture.updatesOf(sessionId)).toEqual([
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'greet' } },
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: ' them' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hel' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'lo from ' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'seamchart' } },
    ]);
    await fixture.close();
    await fixture.expectCleanSessions();
  });

  it('A01 a resource link becomes a text line naming it; an image block is refused with a clear error', async () => {
    const requests: unknown[] = [];
    const fixture = createFixture({
      scripts: [[{ text: 'read it' }]],
      setup: (seams) => {
        seams.on(Seam.promptSubmit, (ctx, next) => {
          requests.push(ctx.content);
          return next();
        });
      },
    });
    await fixture.initialize();
    const sessionId = await fixture.newSession();
    const { client } = fixture;
    await expect(
      client.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }],
      }),
    ).rejects.toThrow(/accepts text and resource_link prompt blocks; block 0 is "image"/);
    const response = await client.request('session/prompt', {
      sessionId,
      prompt: [
        { type: 'text', text: 'look at' },
        { type: 'resource_link', name: 'notes.md', uri: 'file:///tmp/notes.md' },
      ],
    });
    expect(response.stopReason).toBe('end_turn');
    expect(requests).toEqual([
      [
        { type: 'text', text: 'look at' },
        { type: 'text', text: '[resource] notes.md: file:///tmp/notes.md' },
      ],
    ]);
  });

  it("A01 a model that does not stream still reaches the editor: the step's text as one chunk", async () => {
    const fixture = createFixture({
      scripts: [],
      model: { request: async () => ({ content: [{ type: 'text', text: 'all at once' }], finish: 'stop' }) },
    });
    await fixture.initialize();
    const sessionId = await fixture.newSession();
    expect(await fixture.prompt(sessionId, 'hi')).toEqual({ stopReason: 'end_turn' });
    expect(fixture.updatesOf(sessionId)).toEqual([
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'all at once' } },
    ]);
  });

  it('A01 a prompt sent while another runs waits for its own turn and answers with that turn', async () => {
    const fixture = createFixture({
      scripts: [[{ delayMs: 30, text: 'first answer' }, { text: 'second answer' }]],
    });
    await fixture.initialize();
    const sessionId = await fixture.newSession();
    const answered: string[] = [];
    const first = fixture.prompt(sessionId, 'one').then((response) => {
      answered.push(`one:${chunkText(fixture.updatesOf(sessionId), 'agent_message_chunk')}`);
      return response;
    });
    const second = fixture.prompt(sessionId, 'two').then((response) => {
      answered.push(`two:${chunkText(fixture.updatesOf(sessionId), 'agent_message_chunk')}`);
      return response;
    });
    expect(await Promise.all([first, second])).toEqual([
      { stopReason: 'end_turn' },
      { stopReason: 'end_turn' },
    ]);
    // Each response came after its own turn's text and before the next turn's.
    expect(answered).toEqual(['one:first answer', 'two:first answersecond answer']);
  });

  it('A02 a prompt blocked by a prompt-submit plugin answers refusal; the next prompt runs normally', async () => {
    const fixture = createFixture({
      scripts: [[{ text: 'fine' }]],
      setup: (seams) => {
        seams.on(Seam.promptSubmit, (ctx, next) => {
          const text = ctx.content.map((block) => ('text' in block ? block.text : '')).join('');
          return text.includes('secret') ? { kind: 'block', reason: 'no secrets' } : next();
        });
      },
    });
    await fixture.initialize();
    const sessionId = await fixture.newSession();
    expect(await fixture.prompt(sessionId, 'tell me the secret')).toEqual({ stopReason: 'refusal' });
    expect(await fixture.prompt(sessionId, 'hello')).toEqual({ stopReason: 'end_turn' });
    // The blocked prompt's reason reaches the editor before its refusal (J04); the next prompt's answer follows.
    expect(chunkText(fixture.updatesOf(sessionId), 'agent_message_chunk')).toBe(
      '\n⚑ prompt blocked: no secrets\nfine',
    );
    await fixture.close();
    await fixture.expectCleanSessions();
  });

  it('A02 with rejectedStopReason: cancelled, a blocked prompt answers cancelled', async () => {
    const fixture = createFixture({
      scripts: [[]],
      serve: { rejectedStopReason: 'cancelled' },
      setup: (seams) => {
        seams.on(Seam.promptSubmit, () => ({ kind: 'block', reason: 'closed for lunch' }));
      },
    });
    await fixture.initialize();
    const sessionId = await fixture.newSession();
    expect(await fixture.prompt(sessionId, 'anything')).toEqual({ stopReason: 'cancelled' });
    await fixture.close();
    await fixture.expectCleanSessions();
  });

  it('A03 a tool call streams tool_call (pending) → in_progress → completed; a failing tool ends failed', async () => {
    const fixture = createFixture({
      scripts: [
        [
          { toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'ping' } }] },
          { toolCalls: [{ id: 'c1', name: 'fail', arguments: {} }] },
          { text: 'done' },
        ],
      ],
    });
    await fixture.initialize();
    const sessionId = await fixture.newSession();
    expect(await fixture.prompt(sessionId, 'go')).toEqual({ stopReason: 'end_turn' });
    const toolUpdates = fixture
      .updatesOf(sessionId)
      .filter((u) => u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update');
    expect(toolUpdates).toEqual([
      {
        sessionUpdate: 'tool_call',
        toolCallId: '1.1.c1',
        title: 'echo: ping',
        kind: 'read',
        status: 'pending',
        rawInput: { text: 'ping' },
      },
      { sessionUpdate: 'tool_call_update', toolCallId: '1.1.c1', status: 'in_progress' },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: '1.1.c1',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: 'ping' } }],
      },
      // The model reused its call id in the next step: the ACP id stays unique.
      {
        sessionUpdate: 'tool_call',
        toolCallId: '1.2.c1',
        title: 'fail',
        kind: 'execute',
        status: 'pending',
        rawInput: {},
      },
      { sessionUpdate: 'tool_call_update', toolCallId: '1.2.c1', status: 'in_progress' },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: '1.2.c1',
        status: 'failed',
        content: [
          {
            type: 'content',
            content: { type: 'text', text: expect.stringContaining('the disk is on fire') },
          },
        ],
      },
    ]);
    await fixture.close();
    await fixture.expectCleanSessions();
  });

  it('an error turn is a JSON-RPC error carrying the turn message and code', async () => {
    const fixture = createFixture({ scripts: [[{ error: { message: 'overloaded', code: 'RATE_LIMIT' } }]] });
    await fixture.initialize();
    const sessionId = await fixture.newSession();
    const failure = await fixture.prompt(sessionId, 'hi').catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: -32603,
      message: expect.stringContaining('overloaded'),
      data: { code: 'RATE_LIMIT' },
    });
    await fixture.close();
    await fixture.expectCleanSessions();
  });
});
