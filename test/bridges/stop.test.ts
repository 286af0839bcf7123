import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeHooks } from '../../bridges/index.js';
import { createHookAgent, fixture, hooksConfig, requestTexts, useScratchSessions } from './harness.js';

const session = useScratchSessions();

const answers = (n: number) => Array.from({ length: n }, (_, i) => ({ text: `answer ${i + 1}` }));

describe('Stop hooks', () => {
  it('H06 a Stop hook that always blocks runs 9 times, continues 8 times over 9 steps, and the turn completes', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(hooksConfig({ Stop: [{ commands: [fixture('stop-always.sh')] }] }));
    const run = createHookAgent({ bridges: [bridge], cwd, script: answers(9) });
    await run.send('work until done');
    const calls = (await readFile(path.join(cwd, 'stop-calls.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(calls.map((c) => c.stop_hook_active)).toEqual([
      false,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(calls[0]).toMatchObject({
      hook_event_name: 'Stop',
      session_id: run.agent.id,
      cwd,
      transcript_path: expect.stringMatching(/\.claude\.jsonl$/),
      last_assistant_message: 'answer 1',
    });
    expect(run.data('step/start')).toHaveLength(9);
    expect(run.data('steering/message')).toHaveLength(8);
    expect(run.data<{ decision: string }>('hook/result').map((d) => d.decision)).toEqual(
      Array(9).fill('continue'),
    );
    expect(run.data('hook/result')[8]).toMatchObject({
      notes: ['Stop continuation cap (8) reached: the turn completes'],
    });
    expect(run.data('turn/end').map((d) => d.reason)).toEqual([{ kind: 'completed' }]);
    expect(requestTexts(run.model, 1).at(-1)).toBe('not done yet: keep going');
    expect(bridge.capabilities().runtime).toEqual([
      `agent ${run.agent.id} turn 1: Stop hooks asked to continue past the cap of 8; the turn completed`,
    ]);
    await run.finish();
  });

  it('H06 a Stop hook that blocks until a marker file exists continues exactly once', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({ Stop: [{ commands: [fixture('stop-until-marker.sh')] }] }),
    );
    const run = createHookAgent({ bridges: [bridge], cwd, script: answers(2) });
    await run.send('finish up');
    expect(run.model.requests).toHaveLength(2);
    expect(requestTexts(run.model, 1).at(-1)).toBe('run the tests before stopping');
    expect(run.data('steering/message')).toEqual([
      expect.objectContaining({ source: { kind: 'hook', dialect: 'claude-code', event: 'Stop' } }),
    ]);
    expect(run.data<{ decision: string }>('hook/result').map((d) => d.decision)).toEqual([
      'continue',
      'none',
    ]);
    expect(run.data('turn/end').map((d) => d.reason)).toEqual([{ kind: 'completed' }]);
    await run.finish();
  });
});

describe('continue: false', () => {
  it('H11 on PostToolUse the turn ends after this step with stoppedBy and stopReason', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({
        PostToolUse: [{ matcher: 'Bash', commands: [fixture('continue-false.sh', 'deploy finished')] }],
      }),
    );
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      script: [
        { toolCalls: [{ id: 'c1', name: 'Bash', arguments: { command: 'deploy' } }] },
        { text: 'never' },
      ],
    });
    await run.send('deploy');
    expect(run.ran).toEqual(['Bash:deploy']);
    expect(run.model.requests).toHaveLength(1);
    expect(run.data('step/start')).toHaveLength(1);
    expect(run.data('turn/end').map((d) => d.reason)).toEqual([
      { kind: 'completed', stoppedBy: 'claude-code-hooks', stopReason: 'deploy finished' },
    ]);
    expect(run.data('hook/result').map((d) => d.decision)).toEqual(['stop']);
    await run.finish();
  });

  it('H11 on UserPromptSubmit the turn is rejected with the stop reason', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({ UserPromptSubmit: [{ commands: [fixture('continue-false.sh', 'session is frozen')] }] }),
    );
    const run = createHookAgent({ bridges: [bridge], cwd, script: [] });
    await run.send('hello');
    expect(run.model.requests).toHaveLength(0);
    expect(run.data('turn/end').map((d) => d.reason)).toEqual([
      { kind: 'rejected', reason: 'session is frozen' },
    ]);
    await run.finish();
  });

  it('H11 on PreToolUse the call is denied and the turn stops after this step', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({ PreToolUse: [{ commands: [fixture('continue-false.sh', 'out of budget')] }] }),
    );
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      script: [{ toolCalls: [{ id: 'c1', name: 'Bash', arguments: { command: 'ls' } }] }, { text: 'never' }],
    });
    await run.send('list');
    expect(run.ran).toEqual([]);
    expect(run.data('tool/result')[0]).toMatchObject({ isError: true, error: { code: 'DENIED' } });
    expect(run.data('turn/end').map((d) => d.reason)).toEqual([
      { kind: 'completed', stoppedBy: 'claude-code-hooks', stopReason: 'out of budget' },
    ]);
    await run.finish();
  });
});
