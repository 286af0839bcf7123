import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeHooks, codexHooks, type HookBridge } from '../../bridges/index.js';
import type { JsonValue, LogEvent } from '../../kernel/index.js';
import type { ApprovalChannel } from '../../seams/index.js';
import {
  bashCall,
  createHookAgent,
  fixture,
  type HookAgent,
  hooksConfig,
  isGone,
  textOf,
  useScratchSessions,
  waitUntil,
} from './harness.js';

const session = useScratchSessions();

/** A PreToolUse hook that records what it saw in `seen`, waits `delay` s, then rewrites the command. */
function rewriter(seen: string, delay: string, command: string, decision = '', reason = ''): string {
  return fixture('rewrite-input.sh', seen, delay, command, decision, reason);
}

/** Two Bash rewriters in two config entries: the first adds `--dry-run`, the second `-la`. */
function twoRewriters(firstDelay: string, secondDelay: string, decision = '') {
  return hooksConfig({
    PreToolUse: [
      { matcher: 'Bash', commands: [rewriter('first.seen', firstDelay, 'ls --dry-run', decision)] },
      { matcher: 'Bash', commands: [rewriter('second.seen', secondDelay, 'ls -la', decision)] },
    ],
  });
}

async function seen(cwd: string, name: string): Promise<string[]> {
  return (await readFile(path.join(cwd, name), 'utf8')).trim().split('\n');
}

/** The log with only timing normalized: every `time` and every `durationMs`. */
function withoutTiming(events: readonly LogEvent[]): JsonValue {
  const scrub = (value: unknown): JsonValue => {
    if (Array.isArray(value)) return value.map(scrub);
    if (value === null || typeof value !== 'object') return value as JsonValue;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, key === 'durationMs' ? 0 : scrub(inner)]),
    );
  };
  return events.map(({ seq, type, data }) => ({ seq, type, data: scrub(data) }));
}

async function runOnce(
  bridge: HookBridge,
  cwd: string,
  extra: (run: HookAgent) => void = () => {},
): Promise<HookAgent> {
  const run = createHookAgent({
    bridges: [bridge],
    cwd,
    id: 'agent-w03',
    script: [bashCall, { text: 'ok' }],
  });
  extra(run);
  await run.send('list');
  return run;
}

describe('PreToolUse updatedInput through tools/prepare', () => {
  it('W03 two Claude hooks that finish in either order apply in config order (the later entry wins, the earlier is superseded); the log is identical both ways', async () => {
    const cwd = await session();
    const logs: JsonValue[] = [];
    // First the earlier entry finishes last, then it finishes first.
    for (const [firstDelay, secondDelay] of [
      ['0.4', ''],
      ['', '0.4'],
    ] as const) {
      const run = await runOnce(await claudeCodeHooks(twoRewriters(firstDelay, secondDelay)), cwd);
      expect(run.ran).toEqual(['Bash:ls -la']);
      // Each hook ran once, at prepare, on the model's input.
      expect(await seen(cwd, 'first.seen')).toEqual(['ls']);
      expect(await seen(cwd, 'second.seen')).toEqual(['ls']);
      expect(run.hookRows()).toEqual([
        'invoked:claude-code:PreToolUse:0:0',
        'invoked:claude-code:PreToolUse:1:0',
        'result:claude-code:PreToolUse:0:0:none',
        'result:claude-code:PreToolUse:1:0:none',
      ]);
      const results = run.data<{ updatedInput?: string; notes?: string[]; callId?: string }>('hook/result');
      expect(results.map((r) => [r.callId, r.updatedInput, r.notes])).toEqual([
        [
          'c1',
          'superseded',
          ['updatedInput superseded by claude-code:PreToolUse:1:0 (later in config order)'],
        ],
        ['c1', 'applied', ['updatedInput applied at tools/prepare (replacing claude-code:PreToolUse:0:0)']],
      ]);
      expect(run.data('hook/invoked').map((d) => d.callId)).toEqual(['c1', 'c1']);
      expect(run.data('tool/call')).toEqual([
        {
          turn: 1,
          step: 1,
          callId: 'c1',
          name: 'Bash',
          arguments: '{"command":"ls -la"}',
          original: '{"command":"ls"}',
          rewrites: [
            {
              by: 'claude-code-hooks.PreToolUse',
              reason:
                'updatedInput of PreToolUse hook claude-code:PreToolUse:1:0 (superseding claude-code:PreToolUse:0:0)',
            },
          ],
        },
      ]);
      logs.push(withoutTiming(run.agent.log.events));
      await run.finish();
      await rm(path.join(cwd, 'first.seen'));
      await rm(path.join(cwd, 'second.seen'));
    }
    expect(logs[1]).toEqual(logs[0]);
  });

  it('W03 a native tools/prepare listener registered after the bridge that changes the input makes the hooks run again at pre-execute on what will run', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(twoRewriters('0.2', ''));
    const run = await runOnce(bridge, cwd, ({ seams }) => {
      seams.on(
        'tools/prepare',
        (ctx) => ({ kind: 'rewrite', arguments: { command: `${String(ctx.arguments.command)} | head` } }),
        { name: 'pager' },
      );
    });
    expect(run.ran).toEqual(['Bash:ls -la | head']);
    // At prepare both hooks judged the model's input; at pre-execute the sealed one.
    expect(await seen(cwd, 'first.seen')).toEqual(['ls', 'ls -la | head']);
    expect(await seen(cwd, 'second.seen')).toEqual(['ls', 'ls -la | head']);
    const types = run.agent.log.events
      .filter((e) => e.type === 'tool/call' || e.type.startsWith('hook/'))
      .map((e) => e.type);
    expect(types).toEqual([
      'hook/invoked',
      'hook/invoked',
      'hook/result',
      'hook/result',
      'tool/call',
      'hook/invoked',
      'hook/invoked',
      'hook/result',
      'hook/result',
    ]);
    const again = run.data<{ updatedInput?: string; notes?: string[] }>('hook/result').slice(2);
    const rerun =
      'ran again at tools/pre-execute: a later tools/prepare listener changed the input the hooks judged';
    expect(again).toEqual([
      expect.objectContaining({
        updatedInput: 'not-honored',
        notes: [rerun, 'updatedInput not honored: the input is sealed by now'],
      }),
      expect.objectContaining({
        updatedInput: 'not-honored',
        notes: [rerun, 'updatedInput not honored: the input is sealed by now'],
      }),
    ]);
    expect(run.data('tool/call')).toEqual([
      expect.objectContaining({
        arguments: '{"command":"ls -la | head"}',
        original: '{"command":"ls"}',
        rewrites: [expect.objectContaining({ by: 'claude-code-hooks.PreToolUse' }), { by: 'pager' }],
      }),
    ]);
    await run.finish();
  });

  it('W03 the hooks judge what earlier prepare listeners made, and a later listener that keeps the input does not make them run again', async () => {
    const cwd = await session();
    const config = hooksConfig({
      PreToolUse: [{ matcher: 'Bash', commands: [rewriter('first.seen', '', 'ls -la', 'allow')] }],
    });
    const kept: string[] = [];
    const run = await runOnce(await claudeCodeHooks(config), cwd, ({ seams }) => {
      seams.on('tools/prepare', () => ({ kind: 'rewrite', arguments: { command: 'ls /tmp' } }), {
        name: 'first',
        prepend: true,
      });
      seams.on('tools/prepare', (ctx) => void kept.push(String(ctx.arguments.command)), { name: 'watcher' });
    });
    expect(await seen(cwd, 'first.seen')).toEqual(['ls /tmp']);
    expect(kept).toEqual(['ls -la']);
    expect(run.ran).toEqual(['Bash:ls -la']);
    expect(run.hookRows()).toEqual([
      'invoked:claude-code:PreToolUse:0:0',
      'result:claude-code:PreToolUse:0:0:allow',
    ]);
    expect(run.data('tool/call')[0]).toMatchObject({
      original: '{"command":"ls"}',
      rewrites: [{ by: 'first' }, { by: 'claude-code-hooks.PreToolUse' }],
    });
    await run.finish();
  });

  it('W03 the permission decision reached at prepare decides at pre-execute without running the hooks again (deny, and ask on the rewritten input)', async () => {
    const cwd = await session();
    const denying = hooksConfig({
      PreToolUse: [
        { matcher: 'Bash', commands: [rewriter('first.seen', '', 'ls /secret', 'deny', 'not there')] },
      ],
    });
    const denied = await runOnce(await claudeCodeHooks(denying), cwd);
    expect(denied.ran).toEqual([]);
    expect(textOf(denied.data<{ content: never }>('tool/result')[0]?.content)).toBe('Error: not there');
    expect(denied.hookRows()).toEqual([
      'invoked:claude-code:PreToolUse:0:0',
      'result:claude-code:PreToolUse:0:0:deny',
    ]);
    expect(await seen(cwd, 'first.seen')).toEqual(['ls']);
    // Claude applies updatedInput with any decision: the record shows what was refused.
    expect(denied.data('tool/call')[0]).toMatchObject({ arguments: '{"command":"ls /secret"}' });
    await denied.finish();

    const asked: string[] = [];
    const approval: ApprovalChannel = {
      request: async (question) => {
        asked.push(JSON.stringify(question.arguments));
        return 'allowed-once';
      },
    };
    const asking = hooksConfig({
      PreToolUse: [{ matcher: 'Bash', commands: [rewriter('second.seen', '', 'ls -1', 'ask', 'sure?')] }],
    });
    const run = createHookAgent({
      bridges: [await claudeCodeHooks(asking)],
      cwd,
      approval,
      script: [bashCall, { text: 'ok' }],
    });
    await run.send('list');
    expect(asked).toEqual(['{"command":"ls -1"}']);
    expect(run.ran).toEqual(['Bash:ls -1']);
    expect(run.hookRows()).toEqual([
      'invoked:claude-code:PreToolUse:0:0',
      'result:claude-code:PreToolUse:0:0:ask',
    ]);
    await run.finish();
  });

  it('W03 a hook whose updatedInput the tool refuses ends the call INVALID_ARGS naming the bridge listener and the hook; the body never runs', async () => {
    const cwd = await session();
    const number = `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":42}}}'`;
    const broken = hooksConfig({
      PreToolUse: [
        { matcher: 'Bash', commands: [rewriter('first.seen', '', 'ls -a')] },
        { matcher: 'Bash', commands: [number] },
      ],
    });
    const run = await runOnce(await claudeCodeHooks(broken), cwd);
    expect(run.ran).toEqual([]);
    const [result] = run.data<{ isError: boolean; error: { code: string; message: string } }>('tool/result');
    expect(result?.error.code).toBe('INVALID_ARGS');
    expect(result?.error.message).toContain(
      'Listener "claude-code-hooks.PreToolUse" on seam "tools/prepare" returned invalid arguments for tool "Bash"',
    );
    expect(result?.error.message).toContain('updatedInput of PreToolUse hook claude-code:PreToolUse:1:0');
    await run.finish();
  });
});

describe('calls that skip tools/prepare', () => {
  it('W03 an unknown tool is not prepared: its PreToolUse hooks run once at pre-execute and their updatedInput is not honored', async () => {
    const cwd = await session();
    const config = hooksConfig({ PreToolUse: [{ commands: [rewriter('first.seen', '', 'ls -la')] }] });
    const run = createHookAgent({
      bridges: [await claudeCodeHooks(config)],
      cwd,
      script: [{ toolCalls: [{ id: 'c1', name: 'Nope', arguments: { command: 'ls' } }] }, { text: 'ok' }],
    });
    await run.send('list');
    expect(await seen(cwd, 'first.seen')).toEqual(['ls']);
    expect(run.data('tool/call')[0]).not.toHaveProperty('rewrites');
    expect(run.data<{ error: { code: string } }>('tool/result')[0]?.error.code).toBe('UNKNOWN_TOOL');
    expect(run.data<{ updatedInput?: string; notes?: string[] }>('hook/result')).toEqual([
      expect.objectContaining({
        updatedInput: 'not-honored',
        notes: [
          'updatedInput not honored: the call did not go through tools/prepare (unknown tool or input that is not an object)',
        ],
      }),
    ]);
    await run.finish();
  });
});

describe('faults at tools/prepare', () => {
  it('W03 cancelling the turn while a PreToolUse hook runs at prepare kills the hook; no hook/result, the body never runs, the call is paired', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({ PreToolUse: [{ matcher: 'Bash', commands: [fixture('sleeper.sh')] }] }),
      { killGraceMs: 100 },
    );
    const run = createHookAgent({ bridges: [bridge], cwd, script: [bashCall, { text: 'ok' }] });
    run.agent.followup('list');
    expect(await waitUntil(() => existsSync(path.join(cwd, 'sleeper.pids')))).toBe(true);
    run.agent.cancel();
    await run.agent.whenIdle();
    expect(run.ran).toEqual([]);
    expect(run.data('turn/end').map((d) => d.reason)).toEqual([{ kind: 'aborted' }]);
    expect(run.hookRows()).toEqual(['invoked:claude-code:PreToolUse:0:0']);
    const [result] = run.data<{ isError: boolean; error: { code: string } }>('tool/result');
    expect(result).toMatchObject({ isError: true, error: { code: expect.stringMatching(/^ABORTED/) } });
    const pids = (await readFile(path.join(cwd, 'sleeper.pids'), 'utf8')).trim().split(' ').map(Number);
    expect(await waitUntil(() => pids.every(isGone))).toBe(true);
    await run.finish();
  });
});

describe('Codex PreToolUse updatedInput', () => {
  it('W03 Codex: rewrites with permissionDecision "allow" apply in config order whichever finishes last (the log is identical both ways); one without "allow" is ignored', async () => {
    const cwd = await session();
    const logs: JsonValue[] = [];
    for (const [firstDelay, secondDelay] of [
      ['0.3', ''],
      ['', '0.3'],
    ] as const) {
      const config = hooksConfig({
        PreToolUse: [
          { matcher: 'Bash', commands: [rewriter('a.seen', firstDelay, 'ls --dry-run', 'allow')] },
          { matcher: 'Bash', commands: [rewriter('b.seen', secondDelay, 'ls -la', 'allow')] },
          { matcher: 'Bash', commands: [rewriter('c.seen', '', 'rm -rf /')] },
        ],
      });
      const run = await runOnce(await codexHooks(config), cwd);
      expect(run.ran).toEqual(['Bash:ls -la']);
      const results = run.data<{ updatedInput?: string; notes?: string[] }>('hook/result');
      expect(results.map((r) => r.updatedInput)).toEqual(['superseded', 'applied', undefined]);
      expect(results[2]?.notes).toEqual([
        'updatedInput without permissionDecision "allow" is ignored (Codex)',
      ]);
      logs.push(withoutTiming(run.agent.log.events));
      await run.finish();
      for (const name of ['a.seen', 'b.seen', 'c.seen']) await rm(path.join(cwd, name));
    }
    expect(logs[1]).toEqual(logs[0]);
  });

  it('W03 Codex: when a hook blocks, no updatedInput applies (as Codex does)', async () => {
    const cwd = await session();
    const config = hooksConfig({
      PreToolUse: [
        { matcher: 'Bash', commands: [rewriter('a.seen', '', 'ls -la', 'allow')] },
        { matcher: 'Bash', commands: [fixture('permission.sh', 'deny', 'no listing')] },
      ],
    });
    const run = await runOnce(await codexHooks(config), cwd);
    expect(run.ran).toEqual([]);
    expect(run.data('tool/call')[0]).toEqual({
      turn: 1,
      step: 1,
      callId: 'c1',
      name: 'Bash',
      arguments: '{"command":"ls"}',
    });
    expect(run.data<{ updatedInput?: string }>('hook/result').map((r) => r.updatedInput)).toEqual([
      'not-honored',
      undefined,
    ]);
    await run.finish();
  });
});

describe('capability report', () => {
  it('W03 lists PreToolUse updatedInput as honored (Codex: next to "allow"); PermissionRequest decision.updatedInput stays degraded', async () => {
    const config = hooksConfig({
      PreToolUse: [{ commands: ['true'] }],
      PermissionRequest: [{ commands: ['true'] }],
    });
    const [claudePre, claudePermission] = (await claudeCodeHooks(config)).capabilities().handlers;
    expect(claudePre?.seam).toBe('tools/prepare + tools/pre-execute');
    expect(claudePre?.honored).toContain(
      'updatedInput rewrites the call before identity is sealed (with any permissionDecision)',
    );
    expect(claudePre?.degraded.filter((line) => line.startsWith('updatedInput'))).toEqual([]);
    expect(claudePermission?.degraded).toEqual([]);
    expect((await claudeCodeHooks(config)).capabilities().caveats.PermissionRequest).toContain(
      'decision.updatedInput is not honored (identity is sealed by then; rewrite at PreToolUse)',
    );
    const [codexPre] = (await codexHooks(config)).capabilities().handlers;
    expect(codexPre?.honored).toContain(
      'updatedInput with permissionDecision "allow" rewrites the call before identity is sealed',
    );
    // Codex itself ignores updatedInput without "allow": not a difference.
    expect(codexPre?.degraded).toEqual([]);
  });
});
