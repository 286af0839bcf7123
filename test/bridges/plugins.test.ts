import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { claudeCodeHooks, HookConfigError } from '../../bridges/index.js';
import { main } from '../../cli/main.js';
import { captureIO } from '../e2e/support/captureIO.js';
import { createHookAgent, FIXTURES, requestTexts, useScratchSessions } from './harness.js';

const PLUGIN = path.join(FIXTURES, 'plugins', 'env-guard');

describe('Claude Code plugins', () => {
  const session = useScratchSessions();

  it('H13 a plugin folder loads: its hooks run with CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA; H17 its guard reads .tool_input.file_path of a Write', async () => {
    const cwd = await session();
    const dataRoot = path.join(cwd, 'plugin-data');
    const bridge = await claudeCodeHooks({ plugins: [PLUGIN], pluginDataDir: dataRoot });
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      demoTools: true,
      script: [
        {
          toolCalls: [
            { id: 'w1', name: 'Write', arguments: { file_path: '.env', content: 'TOKEN=secret' } },
            { id: 'w2', name: 'Write', arguments: { file_path: 'notes.txt', content: 'hello' } },
          ],
        },
        { text: 'done' },
      ],
    });
    await run.send('save things');
    const data = path.join(dataRoot, 'env-guard');
    // SessionStart ran the plugin's own script with both variables set, and its context reached the model.
    expect(await readFile(path.join(data, 'sessions.log'), 'utf8')).toBe(
      `root=${PLUGIN}\ndata=${data}\nsource=startup\n`,
    );
    expect(requestTexts(run.model, 0)).toContain('env-guard is active: .env files are protected');
    // The exec-form guard got the Write's file_path and refused the .env file only.
    expect(await readFile(path.join(data, 'decisions.log'), 'utf8')).toBe(
      'Write .env deny\nWrite notes.txt allow\n',
    );
    const results = run.data<{ callId: string; isError: boolean; content: { text: string }[] }>(
      'tool/result',
    );
    expect(results.map((r) => [r.callId, r.isError])).toEqual([
      ['w1', true],
      ['w2', false],
    ]);
    expect(results[0]?.content[0]?.text).toContain('.env holds secrets; env-guard refuses to touch it');
    await expect(readFile(path.join(cwd, '.env'), 'utf8')).rejects.toThrow(/ENOENT/);
    expect(await readFile(path.join(cwd, 'notes.txt'), 'utf8')).toBe('hello');
    expect(bridge.capabilities().handlers.map((h) => h.honored.at(-1))).toEqual([
      'from plugin env-guard: CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA are set',
      'from plugin env-guard: CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA are set',
    ]);
    await run.finish();
  });

  it('H13 `seamchart run --claude-plugin DIR` loads the plugin and its hooks run', async () => {
    const cwd = await session();
    vi.stubEnv('XDG_DATA_HOME', path.join(cwd, 'xdg'));
    try {
      const script = path.join(cwd, 'script.json');
      await writeFile(
        script,
        JSON.stringify([
          { toolCalls: [{ id: 'w1', name: 'Write', arguments: { file_path: '.env', content: 'x' } }] },
          { text: 'ok' },
        ]),
      );
      const io = captureIO();
      const code = await main(
        [
          'run',
          'write it',
          '--model',
          `scripted:${script}`,
          '--tools',
          'demo',
          '--cwd',
          cwd,
          '--claude-plugin',
          PLUGIN,
        ],
        io,
      );
      expect(io.err()).toBe('');
      expect(code).toBe(0);
      const data = path.join(cwd, 'xdg', 'seamchart', 'plugins', 'env-guard');
      expect(await readFile(path.join(data, 'sessions.log'), 'utf8')).toContain(`root=${PLUGIN}\n`);
      expect(await readFile(path.join(data, 'decisions.log'), 'utf8')).toBe('Write .env deny\n');
      expect(io.out()).toContain('claude-code hooks: 2 handler(s)');
      expect(io.out()).toContain('.env holds secrets; env-guard refuses to touch it');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('a CLAUDE_PLUGIN_ROOT placeholder that cannot be resolved is a load error naming the JSON path, never a literal', async () => {
    const cwd = await session();
    // The plugin's hooks file loaded as plain settings: nothing sets the plugin root.
    const copy = path.join(cwd, 'hooks.json');
    await cp(path.join(PLUGIN, 'hooks', 'hooks.json'), copy);
    const failure = await claudeCodeHooks(copy).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(HookConfigError);
    expect((failure as Error).message).toBe(
      `${copy}: hooks.SessionStart[0].hooks[0].command uses \${CLAUDE_PLUGIN_ROOT}, which is not set here (load the folder as a plugin, or pass the option that sets it)`,
    );
  });

  it('plugin.json may name its hooks file; a folder without one is a clear load error', async () => {
    const cwd = await session();
    const plugin = path.join(cwd, 'named');
    await mkdir(path.join(plugin, '.claude-plugin'), { recursive: true });
    await mkdir(path.join(plugin, 'config'));
    await writeFile(
      path.join(plugin, '.claude-plugin', 'plugin.json'),
      JSON.stringify({ name: 'named', hooks: './config/hooks.json' }),
    );
    await writeFile(
      path.join(plugin, 'config', 'hooks.json'),
      JSON.stringify({
        hooks: { Stop: [{ hooks: [{ type: 'command', command: `cat "\${CLAUDE_PLUGIN_ROOT}/x"` }] }] },
      }),
    );
    const bridge = await claudeCodeHooks({ plugins: [plugin], pluginDataDir: path.join(cwd, 'data') });
    expect(bridge.capabilities().handlers.map((h) => [h.handlerId, h.command])).toEqual([
      ['claude-code:Stop:0:0', `cat "${plugin}/x"`],
    ]);
    const missing = await claudeCodeHooks({ plugins: [path.join(cwd, 'nope')] }).catch((e: unknown) => e);
    expect((missing as Error).message).toBe(`${path.join(cwd, 'nope')}: is not a plugin directory`);
  });

  it('the example plugin in examples/claude-plugin runs from the README command and refuses the .env write', async () => {
    const cwd = await session();
    vi.stubEnv('XDG_DATA_HOME', path.join(cwd, 'xdg'));
    try {
      const examples = path.resolve(FIXTURES, '../../../examples/claude-plugin');
      const io = captureIO();
      const code = await main(
        [
          'run',
          'save the notes',
          '--model',
          `scripted:${path.join(examples, 'script.json')}`,
          '--tools',
          'demo',
        ].concat(['--cwd', cwd, '--claude-plugin', examples]),
        io,
      );
      expect(code).toBe(0);
      expect(io.out()).toContain('.env holds secrets: secrets-guard refuses to write it');
      expect(await readFile(path.join(cwd, 'notes.txt'), 'utf8')).toBe('hello');
      await expect(readFile(path.join(cwd, '.env'), 'utf8')).rejects.toThrow(/ENOENT/);
      const log = await readFile(
        path.join(cwd, 'xdg', 'seamchart', 'plugins', 'secrets-guard', 'refusals.log'),
        'utf8',
      );
      expect(log).toMatch(/refused \.env\n$/);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
