import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeHooks } from '../../bridges/index.js';
import { createHookAgent, fixture, hooksConfig, useScratchSessions } from './harness.js';

describe('CLAUDE_ENV_FILE', () => {
  const session = useScratchSessions();

  it('H16 a SessionStart hook writing PATH and FOO to CLAUDE_ENV_FILE: later Bash calls run bin/ scripts by name and see FOO', async () => {
    const cwd = await session();
    await mkdir(path.join(cwd, 'bin'));
    await writeFile(path.join(cwd, 'bin', 'hello'), '#!/bin/sh\necho "hello from bin"\n');
    await chmod(path.join(cwd, 'bin', 'hello'), 0o755);
    const bridge = await claudeCodeHooks(
      hooksConfig({
        SessionStart: [{ commands: [fixture('write-env-file.sh')] }],
        // Hooks themselves do not get the env file sourced, nor its path.
        PreToolUse: [{ commands: ['printf "%s|%s" "$CLAUDE_ENV_FILE" "$FOO" > pre-env.txt'] }],
      }),
    );
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      demoTools: true,
      script: [
        {
          toolCalls: [
            { id: 'c1', name: 'Bash', arguments: { command: 'hello && echo "FOO=$FOO"' } },
            {
              id: 'c2',
              name: 'Bash',
              arguments: { command: 'echo plain; exit 3', description: 'still a command' },
            },
          ],
        },
        { text: 'ok' },
      ],
    });
    await run.send('go');
    const values = run.data<{ callId: string; isError: boolean; content: { text: string }[] }>('tool/result');
    expect(values.map((v) => v.isError)).toEqual([false, false]);
    const outcomes = values.map((v) => JSON.parse(v.content[0]?.text ?? 'null'));
    expect(outcomes[0]).toMatchObject({ exitCode: 0, stdout: 'hello from bin\nFOO=bar\n' });
    expect(outcomes[1]).toMatchObject({ exitCode: 3, stdout: 'plain\n' });
    expect(await readFile(path.join(cwd, 'pre-env.txt'), 'utf8')).toBe('|');
    const [file] = run.agent.env?.shellEnvFiles ?? [];
    expect(await readFile(file as string, 'utf8')).toBe(`export PATH="${cwd}/bin:$PATH"\nexport FOO=bar\n`);
    await run.finish();
    // The env files go with the agent.
    expect(existsSync(file as string)).toBe(false);
  });
});
