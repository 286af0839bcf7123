import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeHooks } from '../../bridges/index.js';
import type { ApprovalChannel, ApprovalRequest } from '../../seams/index.js';
import { createHookAgent, FIXTURES, fixture, hooksConfig, textOf, useScratchSessions } from './harness.js';

const approver = (...args: string[]) => ({
  command: 'python3',
  args: [path.join(FIXTURES, 'approve-permission.py'), ...args],
});

/** PreToolUse asks about every Bash call; PermissionRequest answers (or not). */
function config(permission: Record<string, unknown> | string) {
  return hooksConfig({
    PreToolUse: [{ matcher: 'Bash', commands: [fixture('permission.sh', 'ask', 'needs a look')] }],
    PermissionRequest: [{ matcher: 'Bash', commands: [permission] }],
  });
}

function recordingChannel(
  answer: 'allowed-once' | 'rejected',
): ApprovalChannel & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    request: async (question) => {
      asked.push(question);
      return answer;
    },
  };
}

const bash = (id: string, command: string) => ({ id, name: 'Bash', arguments: { command } });

describe('PermissionRequest hooks on tools/approval', () => {
  const session = useScratchSessions();

  for (const withChannel of [false, true]) {
    it(`H18 allow lets an asked call run without consulting the channel (${withChannel ? 'a channel is set' : 'no channel'}); deny denies with its message`, async () => {
      const cwd = await session();
      const channel = recordingChannel('rejected');
      const run = createHookAgent({
        bridges: [await claudeCodeHooks(config(approver()))],
        cwd,
        ...(withChannel ? { approval: channel } : {}),
        script: [{ toolCalls: [bash('c1', 'ls -la'), bash('c2', 'rm -rf build')] }, { text: 'ok' }],
      });
      await run.send('go');
      expect(run.ran).toEqual(['Bash:ls -la']);
      expect(channel.asked).toEqual([]);
      const denied = run.data<{ callId: string; content: unknown }>('tool/result')[1];
      expect(denied?.callId).toBe('c2');
      // The model reads the hook's message in the denial.
      expect(textOf(denied?.content as never)).toContain("'rm -rf build' is not read-only");
      expect(run.hookRows().filter((row) => row.includes('PermissionRequest'))).toEqual([
        'invoked:claude-code:PermissionRequest:0:0',
        'result:claude-code:PermissionRequest:0:0:allow',
        'invoked:claude-code:PermissionRequest:0:0',
        'result:claude-code:PermissionRequest:0:0:deny',
      ]);
      await run.finish();
    });
  }

  it('H18 interrupt: true denies and stops the turn after this step', async () => {
    const cwd = await session();
    const run = createHookAgent({
      bridges: [await claudeCodeHooks(config(approver('interrupt')))],
      cwd,
      script: [{ toolCalls: [bash('c1', 'git push')] }, { text: 'never asked' }],
    });
    await run.send('go');
    expect(run.ran).toEqual([]);
    expect(run.model.requests).toHaveLength(1);
    expect(run.data('turn/end')[0]).toMatchObject({
      reason: {
        kind: 'completed',
        stoppedBy: 'claude-code-hooks',
        stopReason: "'git push' is not read-only",
      },
    });
    await run.finish();
  });

  it('a PermissionRequest hook without a decision falls through to the approval channel', async () => {
    const cwd = await session();
    const channel = recordingChannel('allowed-once');
    const run = createHookAgent({
      bridges: [await claudeCodeHooks(config('cat > /dev/null'))],
      cwd,
      approval: channel,
      script: [{ toolCalls: [bash('c1', 'make')] }, { text: 'ok' }],
    });
    await run.send('go');
    expect(channel.asked.map((q) => [q.toolName, q.reason])).toEqual([['Bash', 'needs a look']]);
    expect(run.ran).toEqual(['Bash:make']);
    await run.finish();
  });

  it('an approval channel may answer with an object: the typed reason reaches the model', async () => {
    const cwd = await session();
    const approval: ApprovalChannel = {
      request: async () => ({ outcome: 'rejected', reason: 'not on a Friday' }),
    };
    const run = createHookAgent({
      bridges: [
        await claudeCodeHooks(
          hooksConfig({
            PreToolUse: [{ matcher: 'Bash', commands: [fixture('permission.sh', 'ask', 'sure?')] }],
          }),
        ),
      ],
      cwd,
      approval,
      script: [{ toolCalls: [bash('c1', 'deploy')] }, { text: 'ok' }],
    });
    await run.send('go');
    expect(run.ran).toEqual([]);
    const first = run.data<{ content: unknown }>('tool/result')[0];
    expect(textOf(first?.content as never)).toContain('not on a Friday');
    await run.finish();
  });
});
