import { describe, expect, it } from 'vitest';
import { claudeCodeHooks, codexHooks } from '../../bridges/index.js';
import type { ApprovalRequest } from '../../seams/index.js';
import { createHookAgent, fixture, hooksConfig, rows, textOf, useScratchSessions } from './harness.js';

const session = useScratchSessions();

const call = (id: string, name: string, command: string) => ({ id, name, arguments: { command } });

interface ToolResultData {
  callId: string;
  isError: boolean;
  content: never;
  error?: { code: string; message: string };
}

describe('PreToolUse through the bridges', () => {
  it('H03 matcher Bash with exit 2 stops the tool and returns stderr; it does not fire for BashOutput; Edit|Write is an exact list', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({
        PreToolUse: [
          { matcher: 'Bash', commands: [fixture('bash-validator.py')] },
          { matcher: 'Edit|Write', commands: [fixture('block-with-stderr.sh', 'files are read-only today')] },
        ],
      }),
    );
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      script: [
        {
          toolCalls: [
            call('c1', 'Bash', 'rm -rf /tmp/x'),
            call('c2', 'BashOutput', 'rm -rf /tmp/y'),
            call('c3', 'Write', 'a.txt'),
            call('c4', 'Bash', 'ls'),
          ],
        },
        { text: 'done' },
      ],
    });
    await run.send('clean up');
    expect(run.ran).toEqual(['BashOutput:rm -rf /tmp/y', 'Bash:ls']);
    const results = run.data<ToolResultData>('tool/result');
    expect(results.map((r) => [r.callId, r.isError, r.error?.code])).toEqual([
      ['c1', true, 'DENIED'],
      ['c2', false, undefined],
      ['c3', true, 'DENIED'],
      ['c4', false, undefined],
    ]);
    expect(textOf(results[0]?.content)).toContain('Refusing to run a recursive delete: rm -rf /tmp/x');
    expect(textOf(results[2]?.content)).toContain('files are read-only today');
    expect(run.hookRows()).toEqual([
      'invoked:claude-code:PreToolUse:0:0',
      'result:claude-code:PreToolUse:0:0:deny',
      'invoked:claude-code:PreToolUse:1:0',
      'result:claude-code:PreToolUse:1:0:deny',
      'invoked:claude-code:PreToolUse:0:0',
      'result:claude-code:PreToolUse:0:0:none',
    ]);
    await run.finish();
  });

  it('H04 permissionDecision deny with exit 0 denies with its reason; ask consults the approval channel', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({
        PreToolUse: [
          { matcher: 'Bash', commands: [fixture('permission.sh', 'deny', 'use the Edit tool instead')] },
          { matcher: 'Write', commands: [fixture('permission.sh', 'ask', 'writes need a human')] },
        ],
      }),
    );
    const asked: ApprovalRequest[] = [];
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      approval: {
        request: async (question) => {
          asked.push(question);
          return 'allowed-once';
        },
      },
      script: [{ toolCalls: [call('c1', 'Bash', 'sed -i x'), call('c2', 'Write', 'b.txt')] }, { text: 'ok' }],
    });
    await run.send('edit');
    expect(run.ran).toEqual(['Write:b.txt']);
    const [denied] = run.data<ToolResultData>('tool/result');
    expect(denied?.error).toMatchObject({ code: 'DENIED' });
    expect(textOf(denied?.content)).toContain('use the Edit tool instead');
    expect(asked.map((q) => [q.toolName, q.callId, q.reason])).toEqual([
      ['Write', 'c2', 'writes need a human'],
    ]);
    expect(run.data('hook/result').map((d) => d.decision)).toEqual(['deny', 'ask']);
    await run.finish();
  });
});

describe('PostToolUse through the bridges', () => {
  const postConfig = hooksConfig({
    PostToolUse: [
      { matcher: 'Bash', commands: [fixture('json-context.py', 'remember to run the linter')] },
      { matcher: 'Write', commands: [fixture('post-block.sh', 'the file has a syntax error')] },
    ],
  });
  const script = [{ toolCalls: [call('c1', 'Bash', 'make'), call('c2', 'Write', 'x.py')] }, { text: 'ok' }];

  it('H05 additionalContext lands after the result; Claude keeps the blocked output and adds the reason', async () => {
    const cwd = await session();
    const run = createHookAgent({ bridges: [await claudeCodeHooks(postConfig)], cwd, script });
    await run.send('build');
    expect(rows(run.agent.log.events).filter((r) => !r.startsWith('hook/'))).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'tool/call:c1',
      'tool/result:c1',
      'tool/call:c2',
      'tool/result:c2',
      'context:remember to run the linter (Bash)',
      'step/end',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ]);
    const [, blocked] = run.data<ToolResultData>('tool/result');
    expect(blocked).toMatchObject({ isError: true, error: { code: 'BLOCKED' } });
    expect(textOf(blocked?.content)).toBe('{"stdout":"ran x.py","exitCode":0}the file has a syntax error');
    await run.finish();
  });

  it('H05 Codex replaces the blocked output with the reason', async () => {
    const cwd = await session();
    const run = createHookAgent({ bridges: [await codexHooks(postConfig)], cwd, script });
    await run.send('build');
    const [, blocked] = run.data<ToolResultData>('tool/result');
    expect(blocked).toMatchObject({ isError: true, error: { code: 'BLOCKED' } });
    expect(textOf(blocked?.content)).toBe('the file has a syntax error');
    expect(run.data('hook/invoked').map((d) => d.dialect)).toEqual(['codex', 'codex']);
    await run.finish();
  });
});
