import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A project as people commit one: settings naming a hook script under `.claude/hooks`, run through $CLAUDE_PROJECT_DIR. */
export async function writeProject(cwd: string): Promise<void> {
  await mkdir(path.join(cwd, '.claude', 'hooks'), { recursive: true });
  await mkdir(path.join(cwd, '.codex'), { recursive: true });
  const mark = path.join(cwd, '.claude', 'hooks', 'mark.sh');
  await writeFile(mark, '#!/bin/sh\ncat > /dev/null\necho "$1" >> "$CLAUDE_PROJECT_DIR/marks.log"\n');
  await chmod(mark, 0o755);
  const hook = (word: string) => ({
    hooks: [{ type: 'command', command: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/mark.sh ${word}` }],
  });
  await writeFile(
    path.join(cwd, '.claude', 'settings.json'),
    JSON.stringify({
      hooks: { SessionStart: [hook('session-start')] },
      permissions: { deny: ['Bash(touch *)'] },
    }),
  );
  await writeFile(
    path.join(cwd, '.claude', 'settings.local.json'),
    JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', ...hook('pre-tool-use') }] } }),
  );
  await writeFile(
    path.join(cwd, '.codex', 'hooks.json'),
    JSON.stringify({
      hooks: {
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo codex-prompt >> marks.log' }] }],
      },
    }),
  );
}

/** The words the project's hooks wrote to `marks.log`, in order. */
export async function marks(cwd: string): Promise<string[]> {
  const text = await readFile(path.join(cwd, 'marks.log'), 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '');
}
