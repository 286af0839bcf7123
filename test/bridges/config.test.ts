import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  claudeCodeHooks,
  codexHooks,
  formatCapabilities,
  HookConfigError,
  loadHookPlugins,
} from '../../bridges/index.js';
import { createHookAgent, FIXTURES, requestTexts, useScratchSessions } from './harness.js';

const session = useScratchSessions();

const configs = path.join(FIXTURES, 'configs');

/** The load error's message with the fixture directory left out (it differs per checkout). */
async function loadError(load: Promise<unknown>): Promise<string> {
  const error = await load.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HookConfigError);
  return (error as Error).message.replaceAll(`${configs}${path.sep}`, '');
}

describe('loading hooks configs', () => {
  it('H10 a malformed config is a load error naming the file and the JSON path', async () => {
    expect(
      await loadError(claudeCodeHooks(path.join(configs, 'malformed-command.json'))),
    ).toMatchInlineSnapshot(
      `"malformed-command.json: hooks.PreToolUse[0].hooks[1].command must be a string, got \`42\` (number)"`,
    );
    expect(
      await loadError(
        loadHookPlugins({ claudeSettings: [], codexHooks: [path.join(configs, 'codex-missing-type.json')] }),
      ),
    ).toMatchInlineSnapshot(
      `"codex-missing-type.json: hooks.Stop[0].hooks[0].type must be a string, got \`undefined\` (undefined)"`,
    );
    expect(await loadError(claudeCodeHooks(path.join(configs, 'bad-regex.json')))).toMatchInlineSnapshot(
      `"bad-regex.json: hooks.PostToolUse[0].matcher is not a valid regular expression (Invalid regular expression: /Edit(/: Unterminated group)"`,
    );
    expect(await loadError(claudeCodeHooks({ hooks: { Stop: { hooks: [] } } }))).toMatchInlineSnapshot(
      `"<inline>: hooks.Stop must be an array, got \`{"hooks":[]}\` (object)"`,
    );
    expect(
      await loadError(
        codexHooks({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x', timeout: -1 }] }] } }),
      ),
    ).toMatchInlineSnapshot(
      `"<inline>: hooks.Stop[0].hooks[0].timeout must be a positive number of seconds, got \`-1\` (number)"`,
    );

    const cwd = await session();
    const broken = path.join(cwd, 'settings.json');
    await writeFile(broken, '{ "hooks": { "Stop": [ }');
    const unparsable = await loadError(claudeCodeHooks(broken));
    expect(unparsable.startsWith(`${broken}: is not valid JSON: `)).toBe(true);
    const missing = await loadError(claudeCodeHooks(path.join(cwd, 'absent.json')));
    expect(missing).toMatch(/absent\.json: cannot be read: ENOENT/);

    // A well-formed config next to the broken ones still loads and runs.
    const bridges = await loadHookPlugins({
      claudeSettings: [path.join(configs, 'mixed.json')],
      codexHooks: [],
    });
    const run = createHookAgent({ bridges, cwd, script: [{ text: 'ok' }] });
    await run.send('hi');
    expect(requestTexts(run.model, 0)).toEqual(['hi', 'from settings']);
    await run.finish();
  });

  it('H10 unsupported events and handler types are reported and skipped with a warning; an async hook runs in the background', async () => {
    const cwd = await session();
    const [bridge] = await loadHookPlugins({
      claudeSettings: [path.join(configs, 'mixed.json')],
      codexHooks: [],
    });
    const report = bridge!.capabilities();
    expect(report.unsupported.map((u) => u.reason)).toEqual([
      'event "Notification" is not supported by the claude-code bridge',
      'claude-code:UserPromptSubmit:0:1: handler type "prompt" is not supported',
    ]);
    expect(report.handlers.map((h) => [h.handlerId, h.seam, h.timeoutMs])).toEqual([
      ['claude-code:UserPromptSubmit:0:0', 'agent/prompt-submit', 30_000],
      ['claude-code:UserPromptSubmit:0:2', 'agent/prompt-submit', 30_000],
    ]);
    expect(report.handlers[1]?.honored.join('\n')).toContain('async: runs in the background');
    expect(formatCapabilities(report).split('\n')[0]).toBe(
      'claude-code hooks: 2 handler(s), 2 behaviour(s) differ from the original client',
    );
    const run = createHookAgent({ bridges: [bridge!], cwd, script: [{ text: 'ok' }] });
    expect(run.logger.lines.filter((line) => line.includes('skipping'))).toHaveLength(2);
    await run.send('hi');
    await run.finish();
  });
});
