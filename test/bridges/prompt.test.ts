import { describe, expect, it } from 'vitest';
import { claudeCodeHooks } from '../../bridges/index.js';
import { createHookAgent, fixture, hooksConfig, requestTexts, useScratchSessions } from './harness.js';

const session = useScratchSessions();

describe('UserPromptSubmit through the Claude Code bridge', () => {
  it('H01 exit 2 with stderr rejects the turn with that reason; the model is never called; hook/invoked and hook/result are recorded', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({
        UserPromptSubmit: [{ commands: [fixture('block-with-stderr.sh', 'no secrets in prompts')] }],
      }),
    );
    const run = createHookAgent({ bridges: [bridge], script: [{ text: 'never' }], cwd });
    await run.send('here is my password');
    expect(run.model.requests).toHaveLength(0);
    expect(run.data('turn/end').map((d) => d.reason)).toEqual([
      { kind: 'rejected', reason: 'no secrets in prompts' },
    ]);
    expect(run.data('prompt/blocked')[0]).toMatchObject({ reason: 'no secrets in prompts' });
    expect(run.hookRows()).toEqual([
      'invoked:claude-code:UserPromptSubmit:0:0',
      'result:claude-code:UserPromptSubmit:0:0:block',
    ]);
    expect(run.data('hook/result')[0]).toMatchObject({
      turn: 1,
      event: 'UserPromptSubmit',
      exitCode: 2,
      stderrSummary: 'no secrets in prompts',
    });
    await run.finish();
  });

  it('H02 plain stdout and JSON additionalContext become contexts of the first request, with a hook source', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({
        UserPromptSubmit: [
          { commands: [fixture('plain-context.sh', 'branch: main')] },
          { commands: [fixture('json-context.py', 'ticket ABC-1 is open')] },
        ],
      }),
    );
    const run = createHookAgent({ bridges: [bridge], script: [{ text: 'ok' }], cwd });
    await run.send('fix the bug');
    expect(requestTexts(run.model, 0)).toEqual([
      'fix the bug',
      'branch: main',
      'ticket ABC-1 is open (fix the bug)',
    ]);
    const contexts = run.data<{ source: unknown }>('context/message');
    expect(contexts.map((c) => c.source)).toEqual([
      {
        kind: 'hook',
        dialect: 'claude-code',
        event: 'UserPromptSubmit',
        handlerId: 'claude-code:UserPromptSubmit:0:0',
      },
      {
        kind: 'hook',
        dialect: 'claude-code',
        event: 'UserPromptSubmit',
        handlerId: 'claude-code:UserPromptSubmit:1:0',
      },
    ]);
    expect(run.hookRows()).toEqual([
      'invoked:claude-code:UserPromptSubmit:0:0',
      'invoked:claude-code:UserPromptSubmit:1:0',
      'result:claude-code:UserPromptSubmit:0:0:none',
      'result:claude-code:UserPromptSubmit:1:0:none',
    ]);
    await run.finish();
  });

  it('H02 contexts ride on a downstream allow that rewrites the prompt, and a downstream block drops them', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({ UserPromptSubmit: [{ commands: [fixture('plain-context.sh', 'hook context')] }] }),
    );
    const run = createHookAgent({ bridges: [bridge], script: [{ text: 'ok' }], cwd });
    run.seams.on('agent/prompt-submit', (ctx) =>
      ctx.content.some((b) => b.type === 'text' && b.text === 'veto')
        ? { kind: 'block', reason: 'policy veto' }
        : { kind: 'allow', content: [{ type: 'text', text: 'rewritten' }] },
    );
    await run.send('original');
    await run.send('veto');
    expect(requestTexts(run.model, 0)).toEqual(['rewritten', 'hook context']);
    expect(run.data('turn/end').map((d) => d.reason)).toEqual([
      { kind: 'completed' },
      { kind: 'rejected', reason: 'policy veto' },
    ]);
    await run.finish();
  });
});
