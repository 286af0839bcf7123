import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeHooks } from '../../bridges/index.js';
import { checkInvariants } from '../../session/index.js';
import { createHookAgent, fixture, isGone, requestTexts, useScratchSessions } from './harness.js';

// Generous: the machine these run on may be loaded; each wait ends as soon as its condition holds.
async function waitFor(what: string, test: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function pidIn(file: string): Promise<number> {
  await waitFor(`pid file ${file}`, () => existsSync(file));
  let pid = Number.NaN;
  await waitFor(`a pid in ${file}`, async () => {
    pid = Number((await readFile(file, 'utf8')).trim());
    return Number.isInteger(pid) && pid > 0;
  });
  return pid;
}

const bash = (id: string, command: string) => ({ id, name: 'Bash', arguments: { command } });

describe('async hooks as Claude Code runs them', { timeout: 120_000 }, () => {
  const session = useScratchSessions();

  it('I01 async, asyncRewake and a {"async":true} answer hold neither the call nor the session start; dispose kills them', async () => {
    const cwd = await session();
    const pids = ['start.pid', 'pre.pid', 'post.pid'].map((name) => path.join(cwd, name));
    const never = path.join(cwd, 'never');
    const bridge = await claudeCodeHooks({
      hooks: {
        SessionStart: [
          {
            hooks: [
              {
                type: 'command',
                command: fixture('async-answer.sh', pids[0]!, '30', 'late', 'SessionStart'),
              },
            ],
          },
        ],
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              {
                type: 'command',
                command: fixture('background-context.sh', pids[1]!, never, '30', 'late', 'PreToolUse'),
                async: true,
              },
            ],
          },
        ],
        PostToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              {
                type: 'command',
                command: fixture('rewake-when.sh', pids[2]!, never, 'x'),
                asyncRewake: true,
              },
            ],
          },
        ],
      },
    });
    const report = bridge.capabilities();
    expect(report.unsupported).toEqual([]);
    expect(report.handlers.flatMap((h) => h.honored).join('\n')).toContain('asyncRewake');
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      script: [{ toolCalls: [bash('c1', 'ls')] }, { text: 'done' }],
    });
    await run.send('go');
    // The turn ended while all three hooks still run: nothing waited for them.
    expect(run.ran).toEqual(['Bash:ls']);
    const alive = await Promise.all(pids.map(pidIn));
    expect(alive.map(isGone)).toEqual([false, false, false]);
    const pre = run.data<{ event: string; decision: string; notes?: string[] }>('hook/result');
    expect(pre.map((r) => [r.event, r.decision, r.notes])).toEqual([
      ['PreToolUse', 'none', ['async: runs in the background']],
      ['PostToolUse', 'none', ['asyncRewake: runs in the background']],
    ]);
    await run.finish();
    await waitFor('the background hooks to be killed', () => alive.every(isGone));
  });

  it('I01 an asyncRewake Stop hook that exits 2 while the agent is idle is recorded as agent.inject() does: an injection turn the next request sees', async () => {
    const cwd = await session();
    const wake = path.join(cwd, 'wake');
    const pid = path.join(cwd, 'stop.pid');
    const bridge = await claudeCodeHooks({
      hooks: {
        Stop: [
          {
            hooks: [
              {
                type: 'command',
                // Consumes the wake file, so the next turn's Stop hook waits again (and is killed at dispose).
                command: `${fixture('rewake-when.sh', pid, wake, 'found an injection in app.js')}; s=$?; rm -f '${wake}'; exit $s`,
                asyncRewake: true,
                rewakeMessage: 'Background security review:',
                rewakeSummary: 'review found issues',
              },
            ],
          },
        ],
      },
    });
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      script: [{ text: 'done' }, { text: 'looking at it' }],
    });
    await run.send('write app.js');
    expect(run.model.requests).toHaveLength(1);
    await pidIn(pid);
    await writeFile(wake, '');
    await waitFor('the injection turn', () =>
      run.agent.log.events.some(
        (e) => e.type === 'context/message' && JSON.stringify(e.data).includes('found an injection'),
      ),
    );
    // Recorded, not answered: the model is asked nothing until the next prompt, which sees it.
    expect(run.model.requests).toHaveLength(1);
    await run.send('anything else?');
    expect(requestTexts(run.model, 1)).toContain(
      'Background security review:\n\nfound an injection in app.js',
    );
    expect(run.logger.lines).toContain('claude-code:Stop:0:0: review found issues');
    await run.finish();
  });

  it('I01 an asyncRewake hook that exits 2 during a turn joins that turn (its FIFO), not a new one', async () => {
    const cwd = await session();
    const go = path.join(cwd, 'go');
    const bridge = await claudeCodeHooks({
      hooks: {
        PostToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              {
                type: 'command',
                if: 'Bash(true)',
                command: `${fixture('rewake-when.sh', path.join(cwd, 'post.pid'), go, 'lint failed')}; s=$?; rm -f '${go}'; exit $s`,
                asyncRewake: true,
              },
            ],
          },
        ],
      },
    });
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      demoTools: true,
      script: [
        { toolCalls: [bash('c1', 'true')] },
        { toolCalls: [bash('c2', `touch '${go}' && while [ -e '${go}' ]; do sleep 0.1; done; sleep 0.5`)] },
        { text: 'fixed' },
      ],
    });
    await run.send('go');
    expect(run.model.requests).toHaveLength(3);
    expect(requestTexts(run.model, 2)).toContain('lint failed');
    expect(run.agent.log.events.filter((e) => e.type === 'turn/start')).toHaveLength(1);
    await run.finish();
  });

  it('I01 an async hook whose context arrives while the agent is idle reaches the model with the next turn', async () => {
    const cwd = await session();
    const ready = path.join(cwd, 'ready');
    const pid = path.join(cwd, 'post.pid');
    const bridge = await claudeCodeHooks({
      hooks: {
        PostToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              {
                type: 'command',
                command: fixture('background-context.sh', pid, ready, '30', 'tests: 3 failed', 'PostToolUse'),
                async: true,
              },
            ],
          },
        ],
      },
    });
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      script: [{ toolCalls: [bash('c1', 'edit')] }, { text: 'done' }, { text: 'on it' }],
    });
    await run.send('first');
    const hook = await pidIn(pid);
    await writeFile(ready, '');
    await waitFor('the async hook to finish', () => isGone(hook));
    await waitFor('its context', () =>
      run.agent.log.events.some(
        (e) => e.type === 'context/message' && JSON.stringify(e.data).includes('3 failed'),
      ),
    );
    // Idle: no model request was made for it.
    expect(run.model.requests).toHaveLength(2);
    await run.send('second');
    expect(requestTexts(run.model, 2)).toContain('tests: 3 failed');
    expect(checkInvariants(run.agent.log.events)).toEqual([]);
    await run.finish();
  });
});
