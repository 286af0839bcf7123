import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { claudeCodeHooks } from '../../bridges/index.js';
import { main } from '../../cli/main.js';
import { createSeams } from '../../seams/index.js';
import { captureIO } from '../e2e/support/captureIO.js';
import { createHookAgent, hooksConfig, textOf, useScratchSessions } from './harness.js';

describe('failures are visible', () => {
  const session = useScratchSessions();

  it('H20 a SessionStart hook that exits 127 is reported through agent/error with its handler id, exit code and stderr', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({
        SessionStart: [{ commands: ['"$CLAUDE_PROJECT_DIR"/hooks-handlers/session-start.sh'] }],
      }),
    );
    const run = createHookAgent({ bridges: [bridge], cwd, script: [{ text: 'hi' }] });
    const errors: { origin: string; error: { message: string; code?: string | undefined } }[] = [];
    run.seams.on('agent/error', (payload) => {
      errors.push({ origin: payload.origin, error: payload.error });
    });
    await run.send('hello');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.origin).toBe('claude-code-hooks');
    expect(errors[0]?.error.code).toBe('HOOK_FAILED');
    expect(errors[0]?.error.message).toMatch(
      /^SessionStart hook claude-code:SessionStart:0:0 \(.*session-start\.sh\) exited with code 127: .*not found$/,
    );
    await run.finish();
  });

  it('H20 the CLI prints a failed SessionStart hook', async () => {
    const cwd = await session();
    const settings = path.join(cwd, 'settings.json');
    await writeFile(
      settings,
      JSON.stringify(hooksConfig({ SessionStart: [{ commands: ['./missing-hook.sh'] }] })),
    );
    const script = path.join(cwd, 'script.json');
    await writeFile(script, JSON.stringify([{ text: 'hi' }]));
    const io = captureIO();
    const code = await main(
      ['run', 'hello', '--model', `scripted:${script}`, '--cwd', cwd, '--claude-settings', settings],
      io,
    );
    expect(code).toBe(0);
    expect(io.out() + io.err()).toMatch(
      /claude-code-hooks.*SessionStart hook claude-code:SessionStart:0:0 \(\.\/missing-hook\.sh\) exited with code 127: .*not found/,
    );
  });

  it('deny reasons are capped like contexts (a 1 MiB stderr does not become the reason)', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({ PreToolUse: [{ commands: ["head -c 1048576 /dev/zero | tr '\\\\0' x >&2; exit 2"] }] }),
    );
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      script: [{ toolCalls: [{ id: 'c1', name: 'Bash', arguments: { command: 'ls' } }] }, { text: 'ok' }],
    });
    await run.send('go');
    const text = textOf(run.data<{ content: never }>('tool/result')[0]?.content);
    expect(text.length).toBeLessThan(10_200);
    expect(text).toMatch(/\[truncated: \d+ more characters from the hook were dropped\]$/);
    expect(run.data<{ notes?: string[] }>('hook/result')[0]?.notes).toContain(
      `reason capped at 10000 characters (${1024 * 1024 - 10_000} dropped)`,
    );
    await run.finish();
  });

  it('the default logger prints a systemMessage without a trailing undefined', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      createSeams().logger.warn?.('claude-code:Stop:0:0 systemMessage: hi');
      expect(warn.mock.calls).toEqual([['claude-code:Stop:0:0 systemMessage: hi']]);
    } finally {
      warn.mockRestore();
    }
  });
});
