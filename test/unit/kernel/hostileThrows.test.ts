import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Seam } from '../../../seams/index.js';
import { createTestAgent } from '../../../testing/index.js';
import { defineTool } from '../../../tools/index.js';

// Values no `String()` or `JSON.stringify` survives, thrown where a plugin or a tool runs.
function nullPrototype(): unknown {
  return Object.create(null);
}
function revokedProxy(): unknown {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

describe('hostile thrown values reach the log as plain failures', () => {
  it('a prompt-submit listener throwing a null-prototype object ends the turn with a readable error', async () => {
    const { agent, expectInvariants } = createTestAgent({
      script: [{ text: 'never' }],
      plugins: [
        {
          name: 'hostile',
          apply: (seams) => {
            seams.on(Seam.promptSubmit, () => {
              throw nullPrototype();
            });
          },
        },
      ],
    });
    agent.followup('hello');
    await agent.whenIdle();
    await agent.dispose();
    expectInvariants();
    const end = agent.log.events.find((event) => event.type === 'turn/end');
    expect(end?.data).toMatchObject({
      reason: { kind: 'error', code: 'LISTENER_FAILED', message: expect.stringContaining('non-Error value') },
    });
  });

  it('a tool throwing a revoked Proxy is a TOOL_FAILED result, and the turn goes on', async () => {
    const { agent, expectInvariants } = createTestAgent({
      script: [{ toolCalls: [{ id: 'c1', name: 'hostile', arguments: {} }] }, { text: 'done' }],
      tools: [
        defineTool({
          name: 'hostile',
          description: 'throws what cannot be printed',
          parameters: z.object({}),
          execute: () => {
            throw revokedProxy();
          },
        }),
      ],
    });
    agent.followup('go');
    await agent.whenIdle();
    await agent.dispose();
    expectInvariants();
    const result = agent.log.events.find((event) => event.type === 'tool/result');
    expect(result?.data).toMatchObject({
      isError: true,
      error: { code: 'TOOL_FAILED', message: 'non-Error value an object' },
    });
    const end = agent.log.events.find((event) => event.type === 'turn/end');
    expect(end?.data).toMatchObject({ reason: { kind: 'completed' } });
  });
});
