import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeHooks, codexHooks } from '../../bridges/index.js';
import { main } from '../../cli/main.js';
import { captureIO } from '../e2e/support/captureIO.js';
import { FIXTURES, useScratchSessions } from './harness.js';

// Shaped like published plugins: matchers, `if`, timeouts, a display-only field, background hooks.
const asInClaudeCode = {
  hooks: {
    SessionStart: [{ hooks: [{ type: 'command', command: 'echo ready', timeout: 30 }] }],
    UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo remember the style guide' }] }],
    PreToolUse: [
      {
        matcher: 'Bash',
        hooks: [{ type: 'command', command: 'true', if: 'Bash(git push *)', statusMessage: 'checking push' }],
      },
    ],
    PostToolUse: [
      { matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'true', async: true, timeout: 120 }] },
      {
        matcher: 'Bash',
        hooks: [
          {
            type: 'command',
            command: 'true',
            if: 'Bash(git commit:*)',
            asyncRewake: true,
            rewakeMessage: 'Review:',
            rewakeSummary: 'found issues',
          },
        ],
      },
    ],
    Stop: [{ hooks: [{ type: 'command', command: 'true', asyncRewake: true }] }],
  },
};

describe('the capability report counts what differs for this configuration', () => {
  const session = useScratchSessions();

  it('I02 a configuration whose hooks all behave as in Claude Code reports 0', async () => {
    const report = (await claudeCodeHooks(asInClaudeCode)).capabilities();
    expect(report.differences).toBe(0);
    expect(report.handlers.flatMap((h) => h.degraded)).toEqual([]);
    expect(report.unsupported).toEqual([]);
    const io = captureIO();
    const cwd = await session();
    const file = path.join(cwd, 'settings.json');
    await writeFile(file, JSON.stringify(asInClaudeCode));
    expect(await main(['hooks', 'check', '--claude-settings', file], io)).toBe(0);
    expect(io.out().split('\n')[0]).toBe(
      'claude-code hooks: 6 handler(s), every behaviour as in the original client',
    );
    expect(io.out()).toContain('asyncRewake: runs in the background');
    expect(io.out()).toContain('note: statusMessage is not shown (display only)');
  });

  it('I02 each difference is counted once, for the handler it concerns, and named', async () => {
    const config = {
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: 'true', once: true }] },
          { matcher: 'Bash', hooks: [{ type: 'prompt', prompt: 'safe?' }] },
        ],
        PostToolUse: [{ hooks: [{ type: 'command', command: 'true' }] }],
        Notification: [{ hooks: [{ type: 'command', command: 'true' }] }],
      },
    };
    const report = (await claudeCodeHooks(config)).capabilities();
    expect(report.differences).toBe(3);
    const cwd = await session();
    const file = path.join(cwd, 'settings.json');
    await writeFile(file, JSON.stringify(config));
    const io = captureIO();
    expect(await main(['hooks', 'check', '--claude-settings', file], io)).toBe(0);
    const lines = io.out().split('\n');
    expect(lines[0]).toBe('claude-code hooks: 2 handler(s), 3 behaviour(s) differ from the original client');
    expect(lines.filter((line) => /^\s+(differs|unsupported):/.test(line))).toEqual([
      '    differs: once is not honored: the hook runs on every matching event',
      `  unsupported: event "Notification" is not supported by the claude-code bridge (${file})`,
      `  unsupported: claude-code:PreToolUse:1:0: handler type "prompt" is not supported (${file})`,
    ]);
  });

  it('I02 hooks check reads a plugin folder and a Codex hooks.json; a bad config is exit 2', async () => {
    const io = captureIO();
    expect(
      await main(['hooks', 'check', '--claude-plugin', path.join(FIXTURES, 'plugins', 'env-guard')], io),
    ).toBe(0);
    expect(io.out()).toMatch(
      /^claude-code hooks: \d+ handler\(s\), every behaviour as in the original client/,
    );
    expect(io.out()).toContain('from plugin env-guard: CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA are set');
    const cwd = await session();
    const codex = path.join(cwd, 'hooks.json');
    await writeFile(
      codex,
      JSON.stringify({
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'true', if: 'Bash(rm *)' }] }],
        },
      }),
    );
    const codexIO = captureIO();
    expect(await main(['hooks', 'check', '--codex-hooks', codex], codexIO)).toBe(0);
    expect(codexIO.out()).toContain('codex hooks: 1 handler(s), every behaviour as in the original client');
    expect(codexIO.out()).toContain('note: if is a Claude Code field; Codex ignores it');
    expect((await codexHooks(codex)).capabilities().differences).toBe(0);
    const bad = path.join(cwd, 'bad.json');
    await mkdir(path.dirname(bad), { recursive: true });
    await writeFile(bad, JSON.stringify({ hooks: { Stop: [{ hooks: [{ command: 3 }] }] } }));
    const badIO = captureIO();
    expect(await main(['hooks', 'check', '--claude-settings', bad], badIO)).toBe(2);
    expect(badIO.err()).toBe(
      `seamchart: ${bad}: hooks.Stop[0].hooks[0].command must be a string, got \`3\` (number)\n`,
    );
    const none = captureIO();
    expect(await main(['hooks', 'check'], none)).toBe(2);
  });
});
