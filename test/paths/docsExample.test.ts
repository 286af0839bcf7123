import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { PreToolDecision } from '../../kernel/index.js';
import { createAgent } from '../../machines/agent/createAgent.js';
import { createToolRegistry } from '../../machines/toolCall/createToolRegistry.js';
import { scriptedModel } from '../../model/index.js';
import { createSeams } from '../../seams/index.js';
import type { SeamPlugin } from '../../seams/types.js';
import { checkInvariants, checkLedger } from '../../session/index.js';
import { recordNotifications } from '../../testing/index.js';
import { defineTool } from '../../tools/index.js';

// #region example
// The plugin under test: denies `rm`, asks for `deploy`, allows the rest and adds a note.
const policy: SeamPlugin = {
  name: 'policy',
  apply: (seams) =>
    seams.on('tools/pre-execute', (exec): PreToolDecision => {
      if (exec.name === 'rm') return { kind: 'deny', reason: 'rm is not allowed' };
      if (exec.name === 'deploy') return { kind: 'ask', reason: 'deploys need a human' };
      const note = {
        content: [{ type: 'text' as const, text: 'policy: ok' }],
        source: { kind: 'plugin' as const, plugin: 'policy' },
      };
      return { kind: 'allow', additionalContexts: [note] };
    }),
};

// One scripted turn per decision the plugin can make, each checked against every log invariant.
const cases = { allow: 'echo', deny: 'rm', ask: 'deploy' } as const;

async function runPolicyTurn(toolName: string) {
  const seams = createSeams();
  seams.use(policy);
  const notifications = recordNotifications(seams);
  const tools = createToolRegistry();
  for (const name of Object.values(cases)) {
    tools.register(
      defineTool({ name, description: name, parameters: z.object({}), execute: () => `${name} ran` }),
    );
  }
  const model = scriptedModel([
    { toolCalls: [{ id: 'c1', name: toolName, arguments: {} }] },
    { text: 'done' },
  ]);
  const agent = createAgent({ seams, tools, model });
  agent.followup('go');
  await agent.whenIdle();
  await agent.dispose();
  notifications.dispose();
  expect(checkInvariants(agent.log.events)).toEqual([]);
  expect(checkLedger(notifications.events)).toEqual([]);
  return { events: agent.log.events, results: notifications.of('tools/result') };
}
// #endregion example

describe('docs/testing.md worked example', () => {
  it('allows, denies and asks, each with a clean log', async () => {
    const allowed = await runPolicyTurn(cases.allow);
    expect(allowed.events.filter((e) => e.type === 'context/message')).toHaveLength(1);
    const denied = await runPolicyTurn(cases.deny);
    const deniedResult = denied.events.find((e) => e.type === 'tool/result')!.data as {
      error?: { code: string };
    };
    expect(deniedResult.error?.code).toBe('DENIED');
    // No approval channel: an `ask` is refused, and the log still pairs the call with a result.
    const asked = await runPolicyTurn(cases.ask);
    expect(asked.events.filter((e) => e.type === 'tool/result')).toHaveLength(1);
  });

  it('is the code docs/testing.md shows', () => {
    const source = readFileSync(new URL(import.meta.url), 'utf8');
    const region = source.split('// #region example\n')[1]!.split('// #endregion example')[0]!;
    const docs = readFileSync(new URL('../../docs/testing.md', import.meta.url), 'utf8');
    expect(docs).toContain(region.trim());
  });
});
