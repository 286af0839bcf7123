import { existsSync, statSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeHooks } from '../../bridges/index.js';
import { createJsonlStore, openJsonlStore } from '../../session/index.js';
import { createHookAgent, FIXTURES, hooksConfig, useScratchSessions } from './harness.js';

const LOOP_STATE = `---
iteration: 1
completion_promise: DONE
---
Keep going until the notes are tidy.
`;

// The loop, plus a hook that notes which transcript_path it was given.
const loopConfig = hooksConfig({
  Stop: [
    {
      commands: [
        `bash '${path.join(FIXTURES, 'stop-loop.sh')}'`,
        'jq -r .transcript_path > transcript-path.txt',
      ],
    },
  ],
});

async function startLoop(cwd: string): Promise<void> {
  await mkdir(path.join(cwd, '.claude'));
  await writeFile(path.join(cwd, '.claude', 'loop.local.md'), LOOP_STATE);
}

const script = [
  { text: 'answer 1' },
  { toolCalls: [{ id: 'c1', name: 'Bash', arguments: { command: 'ls' } }] },
  { text: 'all tidy <promise>DONE</promise>' },
];

describe('a Claude-format transcript for transcript_path', () => {
  const session = useScratchSessions();

  for (const persisted of [false, true]) {
    it(`H15 a Stop loop reading transcript_path with jq finds the last assistant message (${persisted ? 'with' : 'without'} a session file)`, async () => {
      const cwd = await session();
      await startLoop(cwd);
      const file = path.join(cwd, 'session.jsonl');
      const bridge = await claudeCodeHooks(loopConfig, persisted ? { transcriptPath: file } : {});
      const run = createHookAgent({
        bridges: [bridge],
        cwd,
        script,
        ...(persisted ? { store: await createJsonlStore(file) } : {}),
      });
      await run.send('tidy the notes');
      // The loop saw each final answer, continued once, then found its promise and ended.
      expect(await readFile(path.join(cwd, '.claude', 'loop-seen.log'), 'utf8')).toBe(
        'answer 1\nall tidy <promise>DONE</promise>\n',
      );
      expect(existsSync(path.join(cwd, '.claude', 'loop.local.md'))).toBe(false);
      expect(run.data('steering/message')).toHaveLength(1);
      expect(run.data<{ reason: { kind: string } }>('turn/end')[0]?.reason.kind).toBe('completed');
      const transcriptPath = (await readFile(path.join(cwd, 'transcript-path.txt'), 'utf8')).trim();
      if (persisted) {
        expect(transcriptPath).toBe(path.join(cwd, 'session.claude.jsonl'));
        expect(statSync(transcriptPath).mode & 0o777).toBe(0o600);
        const lines = (await readFile(transcriptPath, 'utf8'))
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l));
        expect(lines.map((l) => [l.type, l.message.role])).toEqual([
          ['user', 'user'],
          ['assistant', 'assistant'],
          ['user', 'user'],
          ['assistant', 'assistant'],
          ['user', 'user'],
          ['assistant', 'assistant'],
        ]);
        expect(lines[0]).toMatchObject({
          parentUuid: null,
          sessionId: run.agent.id,
          cwd,
          message: { content: 'tidy the notes' },
        });
        expect(lines[3]?.message.content).toEqual([
          { type: 'tool_use', id: 'c1', name: 'Bash', input: { command: 'ls' } },
        ]);
        expect(lines[4]?.message.content[0]).toMatchObject({
          type: 'tool_result',
          tool_use_id: 'c1',
          is_error: false,
        });
        for (let i = 1; i < lines.length; i++) expect(lines[i].parentUuid).toBe(lines[i - 1].uuid);
      }
      await run.finish();
      // A temporary transcript does not outlive the agent.
      if (!persisted) expect(existsSync(transcriptPath)).toBe(false);
    });
  }

  it('a missing transcript is rebuilt from the log when the session is opened', async () => {
    const cwd = await session();
    const file = path.join(cwd, 'session.jsonl');
    const transcript = path.join(cwd, 'session.claude.jsonl');
    const first = createHookAgent({
      bridges: [
        await claudeCodeHooks(hooksConfig({ Stop: [{ commands: ['true'] }] }), { transcriptPath: file }),
      ],
      cwd,
      script: [{ text: 'first answer' }],
      store: await createJsonlStore(file),
    });
    await first.send('hello');
    await first.finish();
    const written = await readFile(transcript, 'utf8');
    await rm(transcript);
    const again = createHookAgent({
      bridges: [
        await claudeCodeHooks(hooksConfig({ Stop: [{ commands: ['true'] }] }), { transcriptPath: file }),
      ],
      cwd,
      script: [{ text: 'second answer' }],
      store: await openJsonlStore(file),
    });
    await again.agent.whenIdle();
    expect(await readFile(transcript, 'utf8')).toBe(written);
    await again.send('more');
    const lines = (await readFile(transcript, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.message.content)).toEqual([
      'hello',
      [{ type: 'text', text: 'first answer' }],
      'more',
      [{ type: 'text', text: 'second answer' }],
    ]);
    await again.finish();
  });
});
