import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  checkInvariants,
  createAgent,
  createSeams,
  createToolRegistry,
  defineTool,
  scriptedModel,
} from '../../../index.js';

const tools = createToolRegistry();
tools.register(
  defineTool({
    name: 'echo',
    description: 'Echo the text',
    parameters: z.object({ text: z.string() }),
    execute: ({ text }) => text,
  }),
);

// #region instructions
it('gives every request a system prompt that may depend on the turn and step', async () => {
  const model = scriptedModel([{ text: 'Hi!' }]);
  const agent = createAgent({
    seams: createSeams(),
    tools,
    model,
    instructions: ({ turn, step }) => `You are terse. Turn ${turn}, step ${step}.`,
  });
  agent.followup('hello');
  await agent.whenIdle();
  await agent.dispose();

  expect(model.requests[0]?.instructions).toBe('You are terse. Turn 1, step 1.');
  expect(checkInvariants(agent.log.events)).toEqual([]);
});
// #endregion instructions

// #region settings
it('merges the agent’s model settings over the adapter’s', async () => {
  const model = scriptedModel([{ text: 'ok' }], { settings: { temperature: 1, maxOutputTokens: 512 } });
  const agent = createAgent({
    seams: createSeams(),
    tools,
    model,
    modelSettings: { temperature: 0, seed: 7, extra: { reasoning_effort: 'low' } },
  });
  agent.followup('hello');
  await agent.whenIdle();
  await agent.dispose();

  expect(model.requests[0]?.settings).toEqual({
    temperature: 0,
    maxOutputTokens: 512,
    seed: 7,
    extra: { reasoning_effort: 'low' },
  });
  expect(checkInvariants(agent.log.events)).toEqual([]);
});
// #endregion settings

// #region cap
it('ends a turn that keeps continuing at the step cap', async () => {
  const seams = createSeams();
  seams.on('agent/turn-continuation', () => ({ action: 'continue' })); // a loop that never stops
  const model = scriptedModel([{ text: 'one' }, { text: 'two' }, { text: 'three' }]);
  const agent = createAgent({ seams, tools, model, maxStepsPerTurn: 2 });
  agent.followup('go');
  await agent.whenIdle();
  await agent.dispose();

  expect(model.requests).toHaveLength(2);
  expect(agent.log.events.at(-1)?.data).toEqual({ turn: 1, reason: { kind: 'max-steps', steps: 2 } });
  expect(checkInvariants(agent.log.events)).toEqual([]);
});
// #endregion cap

// #region stream
it('streams text as it arrives, then ends when the agent is idle', async () => {
  const agent = createAgent({
    seams: createSeams(),
    tools,
    model: scriptedModel([{ text: 'Hello, streaming world' }]),
  });
  let shown = '';
  const stream = agent.stream(); // may be opened before followup()
  agent.followup('hello');
  for await (const item of stream) {
    if (item.type === 'model/delta' && item.delta.kind === 'text') shown += item.delta.text;
    if (item.type === 'model/delta' && item.delta.kind === 'discard') shown = ''; // a failed step takes it back
    if (item.type === 'session/event' && item.event.type === 'turn/end') shown += '\n';
  }
  await agent.dispose();

  expect(shown).toBe('Hello, streaming world\n');
  expect(checkInvariants(agent.log.events)).toEqual([]);
});
// #endregion stream

// #region usage
it('sums token usage per turn and per session', async () => {
  const agent = createAgent({
    seams: createSeams(),
    tools,
    model: scriptedModel([
      {
        toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'a' } }],
        usage: { inputTokens: 50, outputTokens: 5 },
      },
      { text: 'done', usage: { inputTokens: 60, outputTokens: 3 } },
    ]),
  });
  agent.followup('go');
  await agent.whenIdle();
  await agent.dispose();

  expect(agent.log.events.at(-1)?.data).toMatchObject({ usage: { inputTokens: 110, outputTokens: 8 } });
  expect(agent.usage).toEqual({ inputTokens: 110, outputTokens: 8 });
  expect(checkInvariants(agent.log.events)).toEqual([]);
});
// #endregion usage

describe('docs/model-io.md', () => {
  const source = readFileSync(new URL(import.meta.url), 'utf8');
  const docs = readFileSync(new URL('../../../docs/model-io.md', import.meta.url), 'utf8');
  for (const region of ['instructions', 'settings', 'cap', 'stream', 'usage']) {
    it(`shows the ${region} example exactly as this file runs it`, () => {
      const code = source.split(`// #region ${region}\n`)[1]!.split(`// #endregion ${region}`)[0]!;
      expect(docs).toContain(code.trim());
    });
  }
});
