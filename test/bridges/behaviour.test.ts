import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeCodeHooks, codexHooks } from '../../bridges/index.js';
import {
  bashCall,
  createHookAgent,
  FIXTURES,
  fixture,
  hooksConfig,
  isGone,
  requestTexts,
  textOf,
  useScratchSessions,
  waitUntil,
} from './harness.js';

const session = useScratchSessions();
afterEach(() => {
  delete process.env.SEAMCHART_TEST_TOKEN;
});

describe('hook bridges', () => {
  it('SessionStart contexts reach the first request; the matcher tests the session source', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({
        SessionStart: [
          { matcher: 'startup', commands: [fixture('plain-context.sh', 'fresh session notes')] },
          { matcher: 'resume', commands: [fixture('plain-context.sh', 'resumed session notes')] },
        ],
      }),
    );
    const run = createHookAgent({ bridges: [bridge], cwd, script: [{ text: 'ok' }] });
    await run.send('hi');
    expect(requestTexts(run.model, 0)).toEqual(['fresh session notes', 'hi']);
    expect(run.data('context/message')[0]).toMatchObject({
      source: { kind: 'hook', dialect: 'claude-code', event: 'SessionStart' },
    });
    expect(run.data('hook/invoked')).toEqual([]);
    await run.finish();
  });

  it('hooks run in the session cwd with CLAUDE_PROJECT_DIR, CLAUDE_PLUGIN_ROOT, CLAUDECODE and an optional credential scrub', async () => {
    const cwd = await session();
    process.env.SEAMCHART_TEST_TOKEN = 'secret';
    const config = hooksConfig({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a Claude placeholder the bridge substitutes
      UserPromptSubmit: [{ commands: ['sh "${CLAUDE_PLUGIN_ROOT}/env-context.sh"'] }],
    });
    const plain = await claudeCodeHooks(config, { pluginRoot: FIXTURES });
    const scrubbed = await claudeCodeHooks(config, {
      pluginRoot: FIXTURES,
      projectDir: '/p',
      scrubCredentials: true,
    });
    const run = createHookAgent({ bridges: [plain], cwd, script: [{ text: 'a' }] });
    await run.send('one');
    expect(requestTexts(run.model, 0)[1]).toBe(
      `project=${cwd} plugin=${FIXTURES} claudecode=1 token=secret pwd=${cwd}`,
    );
    await run.finish();
    const second = createHookAgent({ bridges: [scrubbed], cwd, script: [{ text: 'b' }] });
    await second.send('two');
    expect(requestTexts(second.model, 0)[1]).toBe(
      `project=/p plugin=${FIXTURES} claudecode=1 token=unset pwd=${cwd}`,
    );
    await second.finish();
  });

  it('Claude runs identical commands of one event once (first handler id); Codex runs duplicates', async () => {
    const cwd = await session();
    const config = hooksConfig({
      PreToolUse: [
        { matcher: 'Bash', commands: [fixture('count-runs.sh')] },
        { commands: [fixture('count-runs.sh')] },
      ],
    });
    const claude = createHookAgent({
      bridges: [await claudeCodeHooks(config)],
      cwd,
      script: [bashCall, { text: 'ok' }],
    });
    await claude.send('go');
    expect(claude.hookRows()).toEqual([
      'invoked:claude-code:PreToolUse:0:0',
      'result:claude-code:PreToolUse:0:0:none',
    ]);
    expect((await readFile(path.join(cwd, 'runs.log'), 'utf8')).trim().split('\n')).toHaveLength(1);
    await claude.finish();
    const codex = createHookAgent({
      bridges: [await codexHooks(config)],
      cwd,
      script: [bashCall, { text: 'ok' }],
    });
    await codex.send('go');
    expect(codex.data('hook/invoked')).toHaveLength(2);
    expect((await readFile(path.join(cwd, 'runs.log'), 'utf8')).trim().split('\n')).toHaveLength(3);
    await codex.finish();
  });

  it('updatedToolOutput replaces what the model sees; a hookSpecificOutput for another event is ignored and noted', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({
        PreToolUse: [{ commands: [fixture('wrong-event.sh')] }],
        PostToolUse: [{ commands: [fixture('replace-output.sh')] }],
      }),
    );
    const run = createHookAgent({ bridges: [bridge], cwd, script: [bashCall, { text: 'ok' }] });
    await run.send('go');
    expect(run.ran).toEqual(['Bash:ls']);
    expect(textOf(run.data<{ content: never }>('tool/result')[0]?.content)).toBe('[output redacted by hook]');
    expect(run.data('hook/result')[0]).toMatchObject({
      decision: 'none',
      notes: [
        'hookSpecificOutput.hookEventName is "UserPromptSubmit", expected "PreToolUse" (its fields were ignored)',
      ],
    });
    await run.finish();
  });

  it('cancelling a turn kills a running hook; no hook/result is written for it', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({ UserPromptSubmit: [{ commands: [fixture('sleeper.sh')] }] }),
      {
        killGraceMs: 100,
      },
    );
    const run = createHookAgent({ bridges: [bridge], cwd, script: [] });
    run.agent.followup('hello');
    expect(await waitUntil(() => existsSync(path.join(cwd, 'sleeper.pids')))).toBe(true);
    run.agent.cancel();
    await run.agent.whenIdle();
    expect(run.data('turn/end').map((d) => d.reason)).toEqual([{ kind: 'aborted' }]);
    expect(run.hookRows()).toEqual(['invoked:claude-code:UserPromptSubmit:0:0']);
    const pids = (await readFile(path.join(cwd, 'sleeper.pids'), 'utf8')).trim().split(' ').map(Number);
    expect(await waitUntil(() => pids.every(isGone))).toBe(true);
    await run.finish();
  });
});
