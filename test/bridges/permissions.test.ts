import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { claudeCodeHooks } from '../../bridges/index.js';
import type { JsonValue } from '../../kernel/index.js';
import type { ApprovalChannel, ApprovalRequest } from '../../seams/index.js';
import { defineTool } from '../../tools/index.js';
import { createHookAgent, fixture, textOf, useScratchSessions } from './harness.js';

function recordingChannel(): ApprovalChannel & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    request: async (question) => {
      asked.push(question);
      return 'rejected';
    },
  };
}

async function writeJson(file: string, value: unknown): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(value));
  return file;
}

const call = (id: string, name: string, args: Record<string, JsonValue>) => ({ id, name, arguments: args });

describe('the permissions block of Claude Code settings', () => {
  const session = useScratchSessions();

  it('I05 user, project and local rules decide each demo-tool call as Claude Code would; PreToolUse hooks still run', async () => {
    const cwd = await session();
    const home = await session();
    const seen = path.join(cwd, 'hook-saw.txt');
    const user = await writeJson(path.join(home, '.claude', 'settings.json'), {
      permissions: { deny: ['Bash(rm *)'] },
    });
    const project = await writeJson(path.join(cwd, '.claude', 'settings.json'), {
      permissions: {
        allow: ['Bash(touch *)', 'Bash(rm *)', 'Edit'],
        ask: ['Bash(git push *)'],
        deny: ['Read(./secrets/**)'],
      },
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: fixture('record-command.sh', seen) }] },
          // A hook's allow skips the mode's prompt but never an ask rule.
          {
            matcher: 'Bash',
            hooks: [{ type: 'command', command: fixture('permission.sh', 'allow', 'fine') }],
          },
        ],
      },
    });
    const local = await writeJson(path.join(cwd, '.claude', 'settings.local.json'), {
      permissions: { defaultMode: 'default' },
    });
    await mkdir(path.join(cwd, 'secrets'));
    await writeFile(path.join(cwd, 'secrets', 'key.txt'), 'hunter2');
    const channel = recordingChannel();
    const bridge = await claudeCodeHooks({ settingsFiles: [user, project, local], projectDir: cwd });
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      demoTools: true,
      approval: channel,
      script: [
        {
          toolCalls: [
            call('c1', 'Bash', { command: 'cd . && rm -f hook-saw.txt' }),
            call('c2', 'Read', { file_path: 'secrets/key.txt' }),
            call('c3', 'Bash', { command: 'touch made.txt' }),
            call('c4', 'Bash', { command: 'git push origin main' }),
            call('c5', 'Write', { file_path: 'notes.txt', content: 'hello' }),
          ],
        },
        { text: 'done' },
      ],
    });
    await run.send('go');
    const results = Object.fromEntries(
      run
        .data<{ callId: string; content: never; isError?: boolean }>('tool/result')
        .map((r) => [r.callId, { text: textOf(r.content), isError: r.isError === true }]),
    );
    // The user's deny beats the project's allow, and reaches into the compound command.
    expect(results.c1?.isError).toBe(true);
    expect(results.c1?.text).toContain('Bash(rm *)');
    expect(results.c1?.text).toContain(path.join(home, '.claude', 'settings.json'));
    expect(results.c2?.text).toContain('Read(./secrets/**)');
    expect(results.c2?.text).not.toContain('hunter2');
    expect(existsSync(path.join(cwd, 'made.txt'))).toBe(true);
    expect(results.c3?.isError).toBe(false);
    // The ask rule prompts although the hook said allow.
    expect(channel.asked.map((q) => q.callId)).toEqual(['c4']);
    expect(channel.asked[0]?.reason).toContain('Bash(git push *)');
    expect(results.c5?.isError).toBe(false);
    expect(await readFile(path.join(cwd, 'notes.txt'), 'utf8')).toBe('hello');
    // The hooks ran for every Bash call, denied ones included.
    expect((await readFile(seen, 'utf8')).trim().split('\n')).toEqual([
      'cd . && rm -f hook-saw.txt',
      'touch made.txt',
      'git push origin main',
    ]);
    await run.finish();
  });

  it('I05 a call no rule decides follows defaultMode: default asks for Bash and edits, acceptEdits takes edits, MCP tools ask', async () => {
    const cwd = await session();
    const settings = await writeJson(path.join(cwd, '.claude', 'settings.json'), {
      permissions: { allow: ['mcp__notes__lookup'], deny: ['mcp__notes__erase'] },
    });
    const channel = recordingChannel();
    const ran: string[] = [];
    const run = createHookAgent({
      bridges: [await claudeCodeHooks({ settingsFiles: [settings], projectDir: cwd })],
      cwd,
      demoTools: true,
      approval: channel,
      tools: ['mcp__notes__lookup', 'mcp__notes__erase', 'mcp__notes__list'].map((name) =>
        defineTool({
          name,
          description: name,
          parameters: z.object({ key: z.string().optional() }),
          execute: () => {
            ran.push(name);
            return 'ok';
          },
        }),
      ),
      script: [
        {
          toolCalls: [
            call('c1', 'Bash', { command: 'echo hi > out.txt' }),
            call('c2', 'Bash', { command: 'ls' }),
            call('c3', 'Write', { file_path: 'a.txt', content: 'x' }),
            call('c4', 'mcp__notes__lookup', { key: 'k' }),
            call('c5', 'mcp__notes__erase', { key: 'k' }),
            call('c6', 'mcp__notes__list', {}),
          ],
        },
        { text: 'done' },
      ],
    });
    await run.send('go');
    expect(channel.asked.map((q) => q.callId)).toEqual(['c1', 'c3', 'c6']);
    expect(channel.asked[0]?.reason).toBe('Bash needs approval (permission mode default)');
    expect(ran).toEqual(['mcp__notes__lookup']);
    expect(existsSync(path.join(cwd, 'out.txt'))).toBe(false);
    await run.finish();

    const edits = createHookAgent({
      bridges: [
        await claudeCodeHooks({ settingsFiles: [settings], projectDir: cwd, permissionMode: 'acceptEdits' }),
      ],
      cwd,
      demoTools: true,
      approval: channel,
      script: [{ toolCalls: [call('c1', 'Write', { file_path: 'a.txt', content: 'x' })] }, { text: 'done' }],
    });
    await edits.send('go');
    expect(await readFile(path.join(cwd, 'a.txt'), 'utf8')).toBe('x');
    await edits.finish();
  });

  it('I05 a malformed rule is a load error naming the file and the rule', async () => {
    const cwd = await session();
    const settings = await writeJson(path.join(cwd, '.claude', 'settings.json'), {
      permissions: { allow: ['Bash(npm test:*)', 'Read(./secrets/**'] },
    });
    await expect(claudeCodeHooks({ settingsFiles: [settings] })).rejects.toThrow(
      `${settings}: permissions.allow[1] "Read(./secrets/**" is not a permission rule`,
    );
  });
});
