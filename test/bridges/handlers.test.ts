import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeHooks } from '../../bridges/index.js';
import { splitSubcommands } from '../../bridges/shellSplit.js';
import { createHookAgent, FIXTURES, fixture, hooksConfig, useScratchSessions } from './harness.js';

const bash = (id: string, command: string) => ({ id, name: 'Bash', arguments: { command } });

async function lines(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '');
}

describe('handler fields: exec form, if, onFailure', () => {
  const session = useScratchSessions();

  it('H14 exec-form args run the program without a shell; two handlers with the same program and different args both run', async () => {
    const cwd = await session();
    const log = path.join(cwd, 'args.log');
    const script = path.join(FIXTURES, 'record_args.py');
    const bridge = await claudeCodeHooks(
      hooksConfig({
        PreToolUse: [
          {
            matcher: 'Bash',
            commands: [
              // `$HOME` and `;` would mean something to a shell: here they are plain arguments.
              { command: 'python3', args: [script, log, 'first', '$HOME; exit 2'] },
              { command: 'python3', args: [script, log, 'second'] },
              { command: 'python3', args: [script, log, 'second'] },
            ],
          },
        ],
      }),
    );
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      script: [{ toolCalls: [bash('c1', 'ls')] }, { text: 'ok' }],
    });
    await run.send('go');
    // Each distinct handler ran exactly once (the identical third is de-duplicated), with its argv intact.
    expect(
      (await lines(log)).map((line) => JSON.parse(line)).sort((a, b) => a.args[0].localeCompare(b.args[0])),
    ).toEqual([
      { args: ['first', '$HOME; exit 2'], tool: 'Bash' },
      { args: ['second'], tool: 'Bash' },
    ]);
    expect(run.ran).toEqual(['Bash:ls']);
    expect(run.hookRows()).toEqual([
      'invoked:claude-code:PreToolUse:0:0',
      'invoked:claude-code:PreToolUse:0:1',
      'result:claude-code:PreToolUse:0:0:none',
      'result:claude-code:PreToolUse:0:1:none',
    ]);
    const report = bridge.capabilities().handlers;
    expect(report[0]?.honored).toContain('exec form: runs python3 with 4 argument(s), no shell');
    expect(report[2]?.notes).toContain(
      'same command as claude-code:PreToolUse:0:1: runs once per event, recorded under claude-code:PreToolUse:0:1',
    );
    await run.finish();
  });

  it('H14 if "Bash(git commit *)" runs the hook for git commit, also compound and with assignments, not for git status', async () => {
    const cwd = await session();
    const log = path.join(cwd, 'seen.log');
    const bridge = await claudeCodeHooks(
      hooksConfig({
        PreToolUse: [
          {
            matcher: 'Bash',
            commands: [{ command: fixture('record-command.sh', log), if: 'Bash(git commit *)' }],
          },
        ],
      }),
    );
    const commands = [
      'git commit -m x',
      'cd repo && git commit -m x',
      'FOO=1 git commit -m x',
      'git status',
      'git commit',
      'echo "git commit -m x"',
      'git status; git commit -am "y z"',
      'git log | head -1',
      'echo $(git rev-parse HEAD)',
    ];
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      script: [{ toolCalls: commands.map((command, i) => bash(`c${i}`, command)) }, { text: 'ok' }],
    });
    await run.send('go');
    expect(await lines(log)).toEqual([
      'git commit -m x',
      'cd repo && git commit -m x',
      'FOO=1 git commit -m x',
      'git commit',
      'git status; git commit -am "y z"',
      // Command substitution is not modelled: the guard runs rather than risk missing a commit.
      'echo $(git rev-parse HEAD)',
    ]);
    expect(run.ran).toHaveLength(commands.length);
    await run.finish();
  });

  it('H14 if with path rules: Write(*.env) and Edit(src/**) test the file_path', async () => {
    const cwd = await session();
    const log = path.join(cwd, 'paths.log');
    const record = {
      command: 'sh',
      args: ['-c', `jq -r '.tool_name + " " + .tool_input.file_path' >> '${log}'`],
    };
    const bridge = await claudeCodeHooks(
      hooksConfig({
        PreToolUse: [
          {
            commands: [
              { ...record, if: 'Write(*.env)' },
              { ...record, args: [...record.args, 'edit'], if: 'Edit(src/**)' },
            ],
          },
        ],
      }),
    );
    const write = (id: string, file: string) => ({
      id,
      name: 'Write',
      arguments: { command: file, file_path: file },
    });
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      script: [
        {
          toolCalls: [
            write('w1', '.env'),
            write('w2', 'config/prod.env'),
            write('w3', 'README.md'),
            { id: 'e1', name: 'Edit', arguments: { command: 'x', file_path: 'src/a/b.ts' } },
            { id: 'e2', name: 'Edit', arguments: { command: 'x', file_path: 'test/b.ts' } },
          ],
        },
        { text: 'ok' },
      ],
    });
    await run.send('go');
    expect((await lines(log)).sort()).toEqual(['Edit src/a/b.ts', 'Write .env', 'Write config/prod.env']);
    await run.finish();
  });

  it('H14 onFailure "block" on a crashing hook denies the call; without it the crash is non-blocking', async () => {
    const cwd = await session();
    const crash = path.join(FIXTURES, 'crash.py');
    const bridge = await claudeCodeHooks(
      hooksConfig({
        PreToolUse: [
          { matcher: 'Bash', commands: [{ command: 'python3', args: [crash], onFailure: 'block' }] },
          { matcher: 'Write', commands: [{ command: 'python3', args: [crash] }] },
        ],
      }),
    );
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      script: [
        { toolCalls: [bash('c1', 'ls'), { id: 'c2', name: 'Write', arguments: { command: 'w' } }] },
        { text: 'ok' },
      ],
    });
    await run.send('go');
    expect(run.ran).toEqual(['Write:w']);
    const denied = run.data<{ callId: string; content: { text: string }[] }>('tool/result')[0];
    expect(denied?.callId).toBe('c1');
    expect(denied?.content[0]?.text).toContain("KeyError: 'no_such_field'");
    expect(run.hookRows()).toEqual([
      'invoked:claude-code:PreToolUse:0:0',
      'result:claude-code:PreToolUse:0:0:deny',
      'invoked:claude-code:PreToolUse:1:0',
      'result:claude-code:PreToolUse:1:0:error',
    ]);
    await run.finish();
  });

  it('unknown handler fields are listed in the capability report', async () => {
    const bridge = await claudeCodeHooks(
      hooksConfig({
        PreToolUse: [{ commands: [{ command: 'true', statusMessage: 'checking', once: true, retries: 3 }] }],
        Stop: [{ commands: [{ command: 'true', if: 'Bash(x)' }] }],
      }),
    );
    const [pre, stop] = bridge.capabilities().handlers;
    expect(pre?.degraded).toEqual([
      'once is not honored: the hook runs on every matching event',
      'field "retries" is not known to the claude-code bridge and is ignored',
    ]);
    // Display-only fields and an `if` on an event without a tool behave as in Claude Code: notes, not counted.
    expect(pre?.notes).toEqual(['statusMessage is not shown (display only)']);
    expect(stop?.notes).toContain('if "Bash(x)" on Stop (an event without a tool): the hook never runs');
    expect(bridge.capabilities().differences).toBe(2);
  });

  it('splits compound commands into subcommands and refuses what it does not model', () => {
    expect(
      splitSubcommands('cd x && FOO=1 BAR="a b" git push origin main || echo "a && b" ; ls | wc -l'),
    ).toEqual([['cd', 'x'], ['git', 'push', 'origin', 'main'], ['echo', '"a && b"'], ['ls'], ['wc', '-l']]);
    expect(splitSubcommands('git push\nnpm publish &')).toEqual([
      ['git', 'push'],
      ['npm', 'publish'],
    ]);
    for (const unparsed of [
      'echo "open',
      'echo `date`',
      'echo $(date)',
      '(cd x; git push)',
      'cat <<EOF\nx\nEOF',
    ])
      expect(splitSubcommands(unparsed)).toBeUndefined();
  });
});
