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
  useScratchSessions,
  waitUntil,
} from './harness.js';

const session = useScratchSessions();

describe('hooks that leave processes behind', () => {
  it('R02 a hook whose background children keep stdout open decides when it exits; the children are killed', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({
        PreToolUse: [{ matcher: 'Bash', commands: [fixture('leave-background.sh', 'not now')] }],
      }),
    );
    const run = createHookAgent({ bridges: [bridge], cwd, script: [bashCall, { text: 'ok' }] });
    const started = performance.now();
    await run.send('list');
    // The default hook timeout is 600 s: the decision came from the exit, not from a timeout.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(run.ran).toEqual([]);
    expect(run.data('hook/result')).toMatchObject([
      {
        decision: 'deny',
        notes: ['background processes kept the output open after the command exited; killed'],
      },
    ]);
    const pids = (await readFile(path.join(cwd, 'background.pids'), 'utf8')).trim().split(' ').map(Number);
    expect(pids).toHaveLength(2);
    expect(pids.filter((pid) => !isGone(pid))).toEqual([]);
    await run.finish();
  });

  it('R02 a cancel while a hook runs kills the hook and the children that left its process group', async () => {
    const cwd = await session();
    const command = `setsid sleep 60 & echo $! > escaped.pid; cat > /dev/null; sleep 60`;
    const bridge = await claudeCodeHooks(
      hooksConfig({ PreToolUse: [{ matcher: 'Bash', commands: [command] }] }),
      {
        killGraceMs: 200,
      },
    );
    const run = createHookAgent({ bridges: [bridge], cwd, script: [bashCall, { text: 'ok' }] });
    run.agent.followup('list');
    const marker = path.join(cwd, 'escaped.pid');
    const escaped = await waitForPid(marker);
    const started = performance.now();
    run.agent.cancel();
    await run.agent.whenIdle();
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(run.data('turn/end').map((d) => d.reason)).toEqual([{ kind: 'aborted' }]);
    // The hook is signalled at once and SIGKILLed after its kill grace (200 ms); the turn does not wait for that.
    expect(await waitUntil(() => isGone(escaped), 2_000)).toBe(true);
    await run.finish();
  });
});

async function waitForPid(file: string): Promise<number> {
  for (let i = 0; i < 500; i++) {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (text.trim()) return Number(text);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no pid in ${file}`);
}
