import { readFileSync } from 'node:fs';
import { createSeams, createToolRegistry, defineTool, type SeamPlugin } from 'seamchart';
import { createTestAgent, InvariantViolationError } from 'seamchart/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

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
  const { agent, notifications, eventTypes, eventData, expectInvariants } = createTestAgent({
    plugins: [reminder],
    script: [{ text: 'ok' }],
  });
  agent.followup('hello');
  await agent.whenIdle();
  await agent.dispose();

  // eventTypes() leaves out the durable inbox's inbox/* events.
  expect(eventTypes().slice(0, 3)).toEqual(['turn/start', 'user/message', 'context/message']);
  expect(eventData('context/message')).toMatchObject([{ source: { plugin: 'reminder' } }]);
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
    const { agent, tools, model, notifications, expectInvariants } = createTestAgent({
      tools: registry,
      script: [{ text: 'hi' }],
    });
    expect(tools).toBe(registry);
    agent.followup('hello');
    expect(notifications.of('agent/inbox/enqueue').map((item) => item.id)).toEqual(['m1']);
    await agent.whenIdle();
    await agent.dispose();
    expect(model.requests).toHaveLength(1);
    expectInvariants();
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

  it('uses a given registry as is: its own listeners decide, under their own names', async () => {
    const seams = createSeams();
    seams.on('agent/prompt-submit', () => ({ kind: 'block', reason: 'not today' }), { name: 'gate' });
    const {
      agent,
      seams: used,
      notifications,
      eventTypes,
      eventData,
      expectInvariants,
    } = createTestAgent({
      seams,
      script: [{ text: 'never asked' }],
    });
    expect(used).toBe(seams);
    agent.followup('hello');
    await agent.whenIdle();
    await agent.dispose();
    expect(eventTypes()).toEqual(['turn/start', 'prompt/blocked', 'turn/end']);
    expect(eventData('turn/end')).toMatchObject([{ reason: { kind: 'rejected', reason: 'not today' } }]);
    expect(notifications.of('seam/decided')).toMatchObject([
      { seam: 'agent/prompt-submit', decidedBy: 'gate' },
    ]);
    expectInvariants();
  });

  it('two test agents on one registry: each records both agents (by agentId), and each ledger holds', async () => {
    const seams = createSeams();
    const first = createTestAgent({ seams, script: [{ text: 'one' }], options: { id: 'first' } });
    const second = createTestAgent({ seams, script: [{ text: 'two' }], options: { id: 'second' } });
    first.agent.followup('a');
    second.agent.followup('b');
    await Promise.all([first.agent.whenIdle(), second.agent.whenIdle()]);
    await Promise.all([first.agent.dispose(), second.agent.dispose()]);
    expect(first.eventData('assistant/message')).toMatchObject([{ content: [{ text: 'one' }] }]);
    expect(second.eventData('assistant/message')).toMatchObject([{ content: [{ text: 'two' }] }]);
    const statusOwners = new Set(first.notifications.of('agent/status').map((status) => status.agentId));
    expect(statusOwners).toEqual(new Set(['first', 'second']));
    first.expectInvariants();
    second.expectInvariants();
  });

  it('passes open and atRest on to checkInvariants for a check taken mid-turn', async () => {
    const { agent, eventTypes, expectInvariants } = createTestAgent({ script: [{ hang: true }] });
    agent.followup('a');
    agent.followup('b');
    while (!eventTypes().includes('step/start')) await new Promise((resolve) => setTimeout(resolve, 1));
    // The turn of 'a' is open and 'b' still waits: sound for a live session, not for one at rest.
    expect(() => expectInvariants({ allowOutstanding: true })).toThrow(/invariant 4/);
    expect(() => expectInvariants({ open: true, allowOutstanding: true })).not.toThrow();
    expect(() => expectInvariants({ open: true, allowOutstanding: true, atRest: true })).toThrow(
      /invariant 12/,
    );
    await agent.dispose();
    expectInvariants();
  });

  it('rejects tools and plugins of the wrong shape before anything runs', () => {
    expect(() => createTestAgent({ script: [], tools: 'echo' as never })).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the \`tools\` option of createTestAgent() to be an array of tool definitions or a tool registry, got \`"echo"\` (string)]`,
    );
    expect(() => createTestAgent({ script: [], plugins: {} as never })).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the \`plugins\` option of createTestAgent() to be an array of plugins, got \`{}\` (object)]`,
    );
    expect(() => createTestAgent({ script: [], seams: {} as never })).toThrowErrorMatchingInlineSnapshot(
      `[TypeError: Expected the \`seams\` option of createTestAgent() to be a registry from createSeams(), got \`{}\` (object)]`,
    );
  });

  it('is the code docs/testing.md shows', () => {
    const source = readFileSync(new URL(import.meta.url), 'utf8');
    const region = source.split('// #region example\n')[1]!.split('// #endregion example')[0]!;
    const docs = readFileSync(new URL('../../../docs/testing.md', import.meta.url), 'utf8');
    expect(docs).toContain(region.trim());
  });
});
