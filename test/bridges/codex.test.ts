import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeHooks, codexHooks } from '../../bridges/index.js';
import {
  bashCall,
  createHookAgent,
  fixture,
  hooksConfig,
  requestTexts,
  rows,
  useScratchSessions,
} from './harness.js';

const session = useScratchSessions();

describe('Codex dialect', () => {
  it('H12 exit 2 with empty stderr fails open, and stdin carries no trailing newline (Claude: one newline, and it blocks)', async () => {
    const cwd = await session();
    const config = hooksConfig({
      PreToolUse: [{ matcher: 'Bash', commands: [fixture('capture-stdin.sh', 'stdin.json')] }],
    });
    const codex = createHookAgent({
      bridges: [await codexHooks(config, { model: 'gpt-test' })],
      cwd,
      script: [bashCall, { text: 'ok' }],
    });
    await codex.send('list');
    expect(codex.ran).toEqual(['Bash:ls']);
    expect(codex.data('hook/result')).toEqual([
      expect.objectContaining({
        decision: 'error',
        exitCode: 2,
        notes: ['exit 2 without a reason on stderr fails open'],
      }),
    ]);
    const codexStdin = await readFile(path.join(cwd, 'stdin.json'), 'utf8');
    expect(codexStdin.endsWith('}')).toBe(true);
    expect(JSON.parse(codexStdin)).toEqual({
      session_id: codex.agent.id,
      transcript_path: null,
      cwd,
      hook_event_name: 'PreToolUse',
      model: 'gpt-test',
      permission_mode: 'default',
      turn_id: '1',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'c1',
    });
    await codex.finish();

    const claude = createHookAgent({
      bridges: [await claudeCodeHooks(config)],
      cwd,
      script: [bashCall, { text: 'ok' }],
    });
    await claude.send('list');
    expect(claude.ran).toEqual([]);
    expect(claude.data('tool/result')[0]).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Error: blocked by PreToolUse hook' }],
    });
    const claudeStdin = await readFile(path.join(cwd, 'stdin.json'), 'utf8');
    expect(claudeStdin.endsWith('}\n')).toBe(true);
    expect(JSON.parse(claudeStdin)).toEqual({
      session_id: claude.agent.id,
      // Without a session file, Claude hooks still get a transcript to read (a temporary one).
      transcript_path: expect.stringMatching(/\.claude\.jsonl$/),
      cwd,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'c1',
    });
    await claude.finish();
  });

  it('H12 Codex matchers: Bash is exact (not BashOutput), a regex matcher is unanchored', async () => {
    const cwd = await session();
    const bridge = await codexHooks(
      hooksConfig({
        PreToolUse: [
          { matcher: 'Bash', commands: [fixture('block-with-stderr.sh', 'no shell')] },
          { matcher: '^Ed.t$', commands: [fixture('block-with-stderr.sh', 'no edits')] },
        ],
      }),
    );
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      script: [
        {
          toolCalls: [
            { id: 'c1', name: 'BashOutput', arguments: { command: 'tail' } },
            { id: 'c2', name: 'Edit', arguments: { command: 'x' } },
          ],
        },
        { text: 'ok' },
      ],
    });
    await run.send('go');
    expect(run.ran).toEqual(['BashOutput:tail']);
    expect(run.hookRows()).toEqual(['invoked:codex:PreToolUse:1:0', 'result:codex:PreToolUse:1:0:deny']);
    await run.finish();
  });

  it('H19 a Codex UserPromptSubmit block with additionalContext records it in the rejected turn; the next request contains it', async () => {
    const cwd = await session();
    const config = hooksConfig({ UserPromptSubmit: [{ commands: [fixture('codex-block-context.sh')] }] });
    const run = createHookAgent({ bridges: [await codexHooks(config)], cwd, script: [{ text: 'noted' }] });
    await run.send('deploy the site');
    await run.send('what is planned for today?');
    const firstTurn = rows(run.agent.log.events).slice(0, 7);
    expect(firstTurn).toEqual([
      'turn/start',
      'hook/invoked:codex:UserPromptSubmit:0:0',
      'hook/result:codex:UserPromptSubmit:0:0',
      'prompt/blocked',
      'context:Deploy freeze in effect until Monday.',
      'turn/end',
      'turn/start',
    ]);
    expect(run.data('turn/end')[0]).toMatchObject({
      reason: { kind: 'rejected', reason: 'deploys are frozen today' },
    });
    expect(run.model.requests).toHaveLength(1);
    expect(requestTexts(run.model, 0)).toEqual([
      'Deploy freeze in effect until Monday.',
      'what is planned for today?',
    ]);
    await run.finish();
  });

  it("the Claude dialect drops a blocked prompt's context, as Claude Code does", async () => {
    const cwd = await session();
    const config = hooksConfig({ UserPromptSubmit: [{ commands: [fixture('codex-block-context.sh')] }] });
    const run = createHookAgent({
      bridges: [await claudeCodeHooks(config)],
      cwd,
      script: [{ text: 'noted' }],
    });
    await run.send('deploy the site');
    await run.send('and now?');
    expect(requestTexts(run.model, 0)).toEqual(['and now?']);
    await run.finish();
  });
});
