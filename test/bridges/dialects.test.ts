import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { claudeCodeHooks, codexHooks } from '../../bridges/index.js';
import { main } from '../../cli/main.js';
import { checkInvariants, readJsonlLog } from '../../session/index.js';
import { captureIO } from '../e2e/support/captureIO.js';
import { createHookAgent, FIXTURES, fixture, useScratchSessions } from './harness.js';

const bash = (id: string, command: string) => ({ id, name: 'Bash', arguments: { command } });

describe("each dialect reads its own client's fields", () => {
  const session = useScratchSessions();
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('I03 Codex ignores the Claude-only if and args as Codex does, and says so', async () => {
    const cwd = await session();
    const seen = path.join(cwd, 'seen.txt');
    const config = {
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              // Codex runs it for every Bash call, `if` notwithstanding.
              { type: 'command', command: fixture('record-command.sh', seen), if: 'Bash(rm *)' },
              // Codex runs `command` through the shell; `args` is not read.
              { type: 'command', command: `echo shell-form >> '${seen}'`, args: ['never'] },
            ],
          },
        ],
      },
    };
    const bridge = await codexHooks(config);
    const [withIf, withArgs] = bridge.capabilities().handlers;
    expect(withIf?.notes).toContain(
      'if is a Claude Code field; Codex ignores it, so the hook runs on every matching call',
    );
    expect(withArgs?.notes).toContain(
      'args is a Claude Code field; Codex ignores it and runs the command through the shell',
    );
    expect(bridge.capabilities().differences).toBe(0);
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      script: [{ toolCalls: [bash('c1', 'ls')] }, { text: 'done' }],
    });
    await run.send('go');
    expect((await readFile(seen, 'utf8')).trim().split('\n').sort()).toEqual(['ls', 'shell-form']);
    await run.finish();
  });

  it('I03 an unset CLAUDE_PLUGIN_ROOT placeholder is a load error in both dialects; an exported one is used', async () => {
    vi.stubEnv('CLAUDE_PLUGIN_ROOT', '');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder as a config writes it
    const command = 'sh "${CLAUDE_PLUGIN_ROOT}/hooks/check.sh"';
    const config = { hooks: { PreToolUse: [{ hooks: [{ type: 'command', command }] }] } };
    await expect(codexHooks(config)).rejects.toThrow(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder named in the error
      '<inline>: hooks.PreToolUse[0].hooks[0].command uses ${CLAUDE_PLUGIN_ROOT}, which is not set here',
    );
    await expect(claudeCodeHooks(config)).rejects.toThrow('which is not set here');
    vi.stubEnv('CLAUDE_PLUGIN_ROOT', '/opt/plugin');
    const [handler] = (await claudeCodeHooks(config)).capabilities().handlers;
    expect(handler?.command).toBe('sh "/opt/plugin/hooks/check.sh"');
    // The CLI: --claude-settings takes the exported value.
    const cwd = await session();
    const settings = path.join(cwd, 'settings.json');
    await writeFile(settings, JSON.stringify(config));
    const io = captureIO();
    expect(await main(['hooks', 'check', '--claude-settings', settings], io)).toBe(0);
    expect(io.out()).toContain('sh "/opt/plugin/hooks/check.sh"');
  });

  it('I03 --codex-plugin runs a Codex plugin with CLAUDE_PLUGIN_ROOT, PLUGIN_ROOT and CLAUDE_PLUGIN_DATA set', async () => {
    const cwd = await session();
    const data = await session();
    vi.stubEnv('XDG_DATA_HOME', data);
    const plugin = path.join(FIXTURES, 'plugins', 'codex-env');
    const script = path.join(cwd, 'script.json');
    await writeFile(script, JSON.stringify([{ toolCalls: [bash('c1', 'true')] }, { text: 'done' }]));
    const sessionFile = path.join(cwd, 's.jsonl');
    const io = captureIO();
    const code = await main(
      [
        'run',
        'go',
        '--model',
        `scripted:${script}`,
        '--cwd',
        cwd,
        '--tools',
        'demo',
        '--approve',
        'yes',
        '--codex-plugin',
        plugin,
        '--session',
        sessionFile,
      ],
      io,
    );
    expect(code).toBe(0);
    const dataDir = path.join(data, 'seamchart', 'plugins', 'codex-env');
    expect((await readFile(path.join(cwd, 'plugin-env.txt'), 'utf8')).trim().split('\n')).toEqual([
      `PLUGIN_ROOT=${plugin}`,
      `CLAUDE_PLUGIN_ROOT=${plugin}`,
      `PLUGIN_DATA=${dataDir}`,
      `CLAUDE_PLUGIN_DATA=${dataDir}`,
    ]);
    expect(existsSync(dataDir)).toBe(true);
    const { events } = await readJsonlLog(sessionFile);
    expect(checkInvariants(events)).toEqual([]);
  });
});
