import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../cli/main.js';
import { captureIO } from '../e2e/support/captureIO.js';
import { fixture, useScratchSessions } from './harness.js';

describe('--json shows what the transcript shows', () => {
  const session = useScratchSessions();

  it('I04 with --json a failing SessionStart hook is an event in the stream and a line on stderr', async () => {
    const cwd = await session();
    const settings = path.join(cwd, 'settings.json');
    await writeFile(
      settings,
      JSON.stringify({
        hooks: {
          SessionStart: [
            { hooks: [{ type: 'command', command: fixture('block-with-stderr.sh', 'venv is broken') }] },
          ],
        },
      }),
    );
    const script = path.join(cwd, 'script.json');
    await writeFile(script, JSON.stringify([{ text: 'hi' }]));
    const io = captureIO();
    const code = await main(
      [
        'run',
        'hello',
        '--json',
        '--model',
        `scripted:${script}`,
        '--cwd',
        cwd,
        '--claude-settings',
        settings,
      ],
      io,
    );
    expect(code).toBe(0);
    const stream = io
      .lines()
      .map((line) => JSON.parse(line) as { type: string; origin?: string; error?: { message: string } });
    const failure = stream.find((item) => item.type === 'agent/error');
    expect(failure?.origin).toBe('claude-code-hooks');
    expect(failure?.error?.message).toMatch(
      /^SessionStart hook claude-code:SessionStart:0:0 \(.*\) exited with code 2: venv is broken$/,
    );
    // The stream is still the run: the turn follows the failure.
    expect(stream.some((item) => item.type === 'turn/end')).toBe(true);
    expect(io.err()).toMatch(
      /^seamchart: claude-code-hooks: SessionStart hook claude-code:SessionStart:0:0 .* exited with code 2: venv is broken\n$/,
    );
  });
});
