// storage.md: hook reasons and contexts are capped — for in-process plugins as for shell hooks.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { capContext, MAX_CONTEXT_CHARS } from '../../../bridges/codec.js';
import type { PromptDecision } from '../../../kernel/index.js';
import { createToolRegistryCore, defineTool } from '../../../tools/index.js';
import { createTestAgent, textOf } from '../agent/helpers.js';

const HUGE = 5 * 1024 * 1024;
const huge = (char: string) => char.repeat(HUGE);
const plugin = { kind: 'plugin', plugin: 'p' } as const;
const dropped = (cut: number) => `\n[truncated: ${cut} more characters from the plugin were dropped]`;

describe('in-process plugin reasons and contexts are capped like a hook’s', () => {
  it('a 5 MiB prompt-submit block reason and context are cut to MAX_CONTEXT_CHARS with a note', async () => {
    const run = createTestAgent({
      script: [],
      register: (seams) =>
        seams.on('agent/prompt-submit', () => ({
          kind: 'block',
          reason: huge('r'),
          additionalContexts: [{ content: [{ type: 'text', text: huge('c') }], source: plugin }],
        })),
    });
    run.agent.followup('hi');
    await run.agent.whenIdle();
    run.expectInvariants();
    const [blocked] = run.eventData<{ reason: string }>('prompt/blocked');
    expect(blocked!.reason).toBe(`${'r'.repeat(MAX_CONTEXT_CHARS)}${dropped(HUGE - MAX_CONTEXT_CHARS)}`);
    const [context] = run.eventData<{ content: never }>('context/message');
    expect(textOf(context!.content)).toBe(
      `${'c'.repeat(MAX_CONTEXT_CHARS)}${dropped(HUGE - MAX_CONTEXT_CHARS)}`,
    );
    expect(run.eventData<{ reason: { reason: string } }>('turn/end')[0]!.reason.reason).toBe(blocked!.reason);
    await run.agent.dispose();
  });

  it('a 5 MiB pre-execute deny reason and a 5 MiB guard denial reach the model capped', async () => {
    const tools = createToolRegistryCore();
    for (const name of ['denied', 'guarded'])
      tools.register(defineTool({ name, description: name, parameters: z.object({}), execute: () => 'ran' }));
    const run = createTestAgent({
      tools,
      script: [
        {
          toolCalls: [
            { id: 'c1', name: 'denied', arguments: {} },
            { id: 'c2', name: 'guarded', arguments: {} },
          ],
        },
        { text: 'ok' },
      ],
      register: (seams) => {
        seams.on('tools/pre-execute', (exec, next) =>
          exec.name === 'denied' ? { kind: 'deny', reason: huge('d') } : next(),
        );
        seams.guard((exec) => (exec.name === 'guarded' ? huge('g') : undefined));
      },
    });
    run.agent.followup('go');
    await run.agent.whenIdle();
    run.expectInvariants();
    const results = run.eventData<{ content: never; isError: boolean }>('tool/result');
    expect(results.map((result) => result.isError)).toEqual([true, true]);
    for (const [index, char] of ['d', 'g'].entries()) {
      const text = textOf(results[index]!.content);
      expect(text).toContain(`${char.repeat(MAX_CONTEXT_CHARS)}${dropped(HUGE - MAX_CONTEXT_CHARS)}`);
      expect(text).not.toContain(char.repeat(MAX_CONTEXT_CHARS + 1));
      expect(text.length).toBeLessThan(MAX_CONTEXT_CHARS + 200);
    }
    await run.agent.dispose();
  });

  it('a 5 MiB context from a tools/execute wrapper and a 5 MiB prepare rewrite reason are capped', async () => {
    const tools = createToolRegistryCore();
    tools.register(
      defineTool({
        name: 'echo',
        description: 'echo',
        parameters: z.object({ text: z.string() }),
        execute: ({ text }) => text,
      }),
    );
    const run = createTestAgent({
      tools,
      script: [{ toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'a' } }] }, { text: 'ok' }],
      register: (seams) => {
        seams.on('tools/prepare', () => ({ kind: 'rewrite', arguments: { text: 'b' }, reason: huge('p') }));
        seams.on('tools/execute', async (_exec, next) => {
          const result = await next();
          return {
            ...result,
            additionalContexts: [{ content: [{ type: 'text', text: huge('w') }], source: plugin }],
          };
        });
      },
    });
    run.agent.followup('go');
    await run.agent.whenIdle();
    run.expectInvariants();
    const [call] = run.eventData<{ rewrites: { reason: string }[] }>('tool/call');
    expect(call!.rewrites[0]!.reason).toBe(
      `${'p'.repeat(MAX_CONTEXT_CHARS)}${dropped(HUGE - MAX_CONTEXT_CHARS)}`,
    );
    const contexts = run
      .eventData<{ content: never }>('context/message')
      .map((context) => textOf(context.content));
    expect(contexts).toEqual([`${'w'.repeat(MAX_CONTEXT_CHARS)}${dropped(HUGE - MAX_CONTEXT_CHARS)}`]);
    await run.agent.dispose();
  });

  it('a short reason and a context within the cap are kept as they are (the same decision object)', async () => {
    let returned: PromptDecision | undefined;
    const run = createTestAgent({
      script: [{ text: 'ok' }],
      register: (seams) => {
        seams.on('agent/prompt-submit', () => {
          returned = {
            kind: 'allow',
            additionalContexts: [
              { content: [{ type: 'text', text: 'x'.repeat(MAX_CONTEXT_CHARS) }], source: plugin },
            ],
          };
          return returned as PromptDecision;
        });
      },
    });
    const decided: unknown[] = [];
    run.seams.on('seam/decided', ({ decision, decidedBy }) => {
      decided.push(decision);
      expect(decidedBy).toBe('agent/prompt-submit#1');
    });
    run.agent.followup('hi');
    await run.agent.whenIdle();
    run.expectInvariants();
    expect(decided).toContain(returned);
    expect(textOf(run.eventData<{ content: never }>('context/message')[0]!.content)).toBe(
      'x'.repeat(MAX_CONTEXT_CHARS),
    );
    await run.agent.dispose();
  });

  it('the cap never splits a surrogate pair and leaves a text it already capped unchanged', () => {
    const emoji = `${'a'.repeat(MAX_CONTEXT_CHARS - 1)}😀😀`;
    const capped = capContext(emoji, 'plugin');
    expect(capped.text.startsWith(`${'a'.repeat(MAX_CONTEXT_CHARS - 1)}\n[truncated: 4 more`)).toBe(true);
    // A hook's capped text passes the plugin cap as it is (no second note).
    const fromHook = capContext(huge('h')).text;
    expect(capContext(fromHook, 'plugin')).toEqual({ text: fromHook });
  });
});
