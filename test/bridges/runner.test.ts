import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeHooks } from '../../bridges/index.js';
import {
  bashCall,
  createHookAgent,
  fixture,
  hooksConfig,
  isGone,
  textOf,
  useScratchSessions,
  waitUntil,
} from './harness.js';

const session = useScratchSessions();

describe('running hooks', () => {
  it('H07 a hook that sleeps past its timeout is killed with its process group and yields no decision; the tool runs', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({
        PreToolUse: [{ matcher: 'Bash', commands: [{ command: fixture('sleeper.sh'), timeout: 0.3 }] }],
      }),
      { killGraceMs: 200 },
    );
    const run = createHookAgent({ bridges: [bridge], cwd, script: [bashCall, { text: 'ok' }] });
    const started = Date.now();
    await run.send('list');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(run.ran).toEqual(['Bash:ls']);
    const [result] = run.data('hook/result');
    expect(result).toMatchObject({
      decision: 'timeout',
      notes: ['timed out after 300 ms; process group killed'],
    });
    expect(result).not.toHaveProperty('exitCode');
    const pids = (await readFile(path.join(cwd, 'sleeper.pids'), 'utf8')).trim().split(' ').map(Number);
    expect(pids).toHaveLength(2);
    expect(await waitUntil(() => pids.every(isGone))).toBe(true);
    await run.finish();
  });

  it('H08 a command that does not exist (exit 127) is a non-blocking error: recorded, and the action proceeds', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({
        PreToolUse: [{ commands: ['/nonexistent/seamchart-hook'] }],
        UserPromptSubmit: [{ commands: ['/nonexistent/seamchart-hook'] }],
      }),
    );
    const run = createHookAgent({ bridges: [bridge], cwd, script: [bashCall, { text: 'ok' }] });
    await run.send('list');
    expect(run.ran).toEqual(['Bash:ls']);
    expect(run.data('turn/end').map((d) => d.reason)).toEqual([{ kind: 'completed' }]);
    const results = run.data<{ decision: string; exitCode: number; notes: string[] }>('hook/result');
    expect(results.map((r) => [r.decision, r.exitCode])).toEqual([
      ['error', 127],
      ['error', 127],
    ]);
    expect(results[0]?.notes[0]).toMatch(/^non-blocking error: exited with code 127: .*not found/);
    await run.finish();
  });

  it.each([
    ['the denying hook finishes last', '0.3', ''],
    ['the denying hook finishes first', '', '0.3'],
  ])(
    'H09 two matching hooks, one denies and one allows (%s): deny wins with its reason; log rows in config order',
    async (_, denyDelay, allowDelay) => {
      const cwd = await session();
      const bridge = await claudeCodeHooks(
        hooksConfig({
          PreToolUse: [
            { matcher: 'Bash', commands: [fixture('permission.sh', 'deny', 'no network access', denyDelay)] },
            {
              matcher: 'Bash|Write',
              commands: [fixture('permission.sh', 'allow', 'looks fine', allowDelay)],
            },
          ],
        }),
      );
      const run = createHookAgent({ bridges: [bridge], cwd, script: [bashCall, { text: 'ok' }] });
      await run.send('list');
      expect(run.ran).toEqual([]);
      const [result] = run.data<{ content: never }>('tool/result');
      expect(textOf(result?.content)).toBe('Error: no network access');
      expect(run.hookRows()).toEqual([
        'invoked:claude-code:PreToolUse:0:0',
        'invoked:claude-code:PreToolUse:1:0',
        'result:claude-code:PreToolUse:0:0:deny',
        'result:claude-code:PreToolUse:1:0:allow',
      ]);
      await run.finish();
    },
  );
});
