import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeHooks } from '../../bridges/index.js';
import { createHookAgent, fixture, hooksConfig, useScratchSessions } from './harness.js';

describe('demo tools speak Claude input fields', () => {
  const session = useScratchSessions();

  it('H17 a PreToolUse hook reading .tool_input.file_path sees the path of a Write and an Edit', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({ PreToolUse: [{ matcher: 'Write|Edit', commands: [fixture('guard-env-file.sh')] }] }),
    );
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      demoTools: true,
      script: [
        {
          toolCalls: [
            { id: 'w1', name: 'Write', arguments: { file_path: 'notes.txt', content: 'hello' } },
            { id: 'w2', name: 'Write', arguments: { file_path: '.env', content: 'TOKEN=secret' } },
          ],
        },
        {
          toolCalls: [
            {
              id: 'e1',
              name: 'Edit',
              arguments: { file_path: 'notes.txt', old_string: 'hello', new_string: 'bye' },
            },
          ],
        },
        { text: 'done' },
      ],
    });
    await run.send('write things');
    expect(await readFile(path.join(cwd, 'seen-paths.log'), 'utf8')).toBe(
      'Write notes.txt\nWrite .env\nEdit notes.txt\n',
    );
    const results = run.data<{ callId: string; isError: boolean }>('tool/result');
    expect(results.map((r) => [r.callId, r.isError])).toEqual([
      ['w1', false],
      ['w2', true],
      ['e1', false],
    ]);
    await expect(readFile(path.join(cwd, '.env'), 'utf8')).rejects.toThrow(/ENOENT/);
    expect(await readFile(path.join(cwd, 'notes.txt'), 'utf8')).toBe('bye');
    await run.finish();
  });
});
