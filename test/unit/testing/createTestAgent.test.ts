import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolRegistry } from '../../../machines/toolCall/createToolRegistry.js';
import type { SeamPlugin } from '../../../seams/types.js';
import { coreTurnEvents } from '../../../session/index.js';
import { createTestAgent, InvariantViolationError } from '../../../testing/index.js';
import { defineTool } from '../../../tools/index.js';

// #region example
// A plugin that adds a reminder to every prompt, tested on a real agent with a scripted model.
const reminder: SeamPlugin = {
  name: 'reminder',
  apply: (seams) =>
    seams.on('agent/prompt-submit', () => ({
      kind: 'allow',
      additionalContexts: [
        {
          content: [{ type: 'text', text: 'be brief' }],
          source: { kind: 'plugin', plugin: 'reminder' },
        },
      ],
    })),
};

it('adds its reminder after the prompt, and the session stays sound', async () => {
  const { agent, notifications, expectInvariants } = createTestAgent({
    plugins: [reminder],
    script: [{ text: 'ok' }],
  });
  agent.followup('hello');
  await agent.whenIdle();
  await agent.dispose();

  // coreTurnEvents leaves out the durable inbox's inbox/* events.
  const types = coreTurnEvents(agent.log.events).map((event) => event.type);
  expect(types.slice(0, 3)).toEqual(['turn/start', 'user/message', 'context/message']);
  expect(notifications.of('agent/inbox/dequeue')).toHaveLength(1);
  expectInvariants(); // throws, listing every broken log invariant and ledger entry
});
// #endregion example

const echo = defineTool({
  name: 'echo',
  description: 'Echo the text',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

describe('createTestAgent', () => {
  it('registers an array of tool definitions and runs them', async () => {
    const { agent, tools, expectInvariants } = createTestAgent({
      tools: [echo],
      script: [{ toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'a' } }] }, { text: 'done' }],
    });
    expect(tools.names()).toEqual(['echo']);
    agent.followup('go');
    await agent.whenIdle();
    await agent.dispose();
    const result = agent.log.events.find((event) => event.type === 'tool/result');
    expect(result?.data).toMatchObject({ callId: 'c1', isError: false });
    expectInvariants();
  });

  it('uses a registry as given, and records notifications from the start', async () => {
    const registry = createToolRegistry();
    const { agent, tools, model, notifications } = createTestAgent({
      tools: registry,
      script: [{ text: 'hi' }],
    });
    expect(tools).toBe(registry);
    agent.followup('hello');
    expect(notifications.of('agent/inbox/enqueue').map((item) => item.id)).toEqual(['m1']);
    await agent.whenIdle();
    await agent.dispose();
    expect(model.requests).toHaveLength(1);
  });

  it('throws an InvariantViolationError listing each broken ledger entry', async () => {
    const { agent, seams, expectInvariants } = createTestAgent({ script: [{ text: 'hi' }] });
    agent.followup('hello');
    await agent.whenIdle();
    await agent.dispose();
    // A dequeue nobody enqueued: what a plugin re-notifying inbox events would do.
    seams.notify('agent/inbox/dequeue', { agentId: agent.id, id: 'ghost', steering: false });
    expect(() => expectInvariants()).toThrow(InvariantViolationError);
    try {
      expectInvariants();
    } catch (error) {
      expect((error as InvariantViolationError).code).toBe('INVARIANT_VIOLATION');
      expect((error as InvariantViolationError).violations.map((v) => v.code)).toEqual(['NOT_OUTSTANDING']);
      expect((error as Error).message).toMatchInlineSnapshot(`
        "Expected the session log and inbox ledger to keep every invariant, got 1 violation:
          - invariant 10 inbox-ledger violated at seq 15: dequeue of ghost, which was never enqueued (the outstanding count goes negative) [NOT_OUTSTANDING]"
      `);
    }
  });

  it('accepts items still queued only when asked to', async () => {
    const { agent, expectInvariants } = createTestAgent({ script: [] });
    agent.queue('later');
    await agent.whenIdle();
    expect(() => expectInvariants({ allowOutstanding: true })).not.toThrow();
    expect(() => expectInvariants()).toThrow(/m1 was enqueued but never dequeued or discarded/);
    await agent.dispose();
    expect(() => expectInvariants()).not.toThrow();
  });

  it('rejects tools and plugins of the wrong shape before anything runs', () => {
    expect(() => createTestAgent({ script: [], tools: 'echo' as never })).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the \`tools\` option of createTestAgent() to be an array of tool definitions or a tool registry, got \`"echo"\` (string)]`,
    );
    expect(() => createTestAgent({ script: [], plugins: {} as never })).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the \`plugins\` option of createTestAgent() to be an array of plugins, got \`{}\` (object)]`,
    );
  });

  it('is the code docs/testing.md shows', () => {
    const source = readFileSync(new URL(import.meta.url), 'utf8');
    const region = source.split('// #region example\n')[1]!.split('// #endregion example')[0]!;
    const docs = readFileSync(new URL('../../../docs/testing.md', import.meta.url), 'utf8');
    expect(docs).toContain(region.trim());
  });
});
