import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { PrepareDecision } from '../../../kernel/index.js';
import { createAgent, createToolRegistry } from '../../../machines/index.js';
import { scriptedModel } from '../../../model/index.js';
import type { PrepareContext, SeamPlugin } from '../../../seams/index.js';
import { createSeams } from '../../../seams/index.js';
import { checkInvariants } from '../../../session/index.js';
import { defineTool } from '../../../tools/index.js';

// #region example
// Routes `grep` to ripgrep, then makes every `git push` a dry run. Each listener sees the input as
// rewritten so far, so the two compose in registration order, whichever finishes first.
function routeGrep(ctx: PrepareContext): PrepareDecision | undefined {
  const command = ctx.arguments.command;
  if (ctx.name !== 'Bash' || typeof command !== 'string' || !/^grep\b/.test(command)) return undefined;
  const rewritten = command.replace(/^grep\b/, 'rg');
  return {
    kind: 'rewrite',
    arguments: { ...ctx.arguments, command: rewritten },
    reason: 'rg skips .gitignored files',
  };
}

function dryRunPush(ctx: PrepareContext): PrepareDecision {
  const command = ctx.arguments.command;
  if (ctx.name !== 'Bash' || typeof command !== 'string' || !command.startsWith('git push'))
    return { kind: 'keep' };
  return { kind: 'rewrite', arguments: { ...ctx.arguments, command: `${command} --dry-run` } };
}

const rewriter: SeamPlugin = {
  name: 'rewriter',
  apply: (seams) => {
    seams.on('tools/prepare', routeGrep);
    seams.on('tools/prepare', dryRunPush);
  },
};
// #endregion example

describe('docs/seams.md rewrite example', () => {
  it('rewrites what runs, records what the model asked for, and keeps the log clean', async () => {
    const ran: string[] = [];
    const tools = createToolRegistry();
    tools.register(
      defineTool({
        name: 'Bash',
        description: 'run a command (recorded, not run)',
        parameters: z.object({ command: z.string() }),
        execute: ({ command }) => {
          ran.push(command);
          return `ran: ${command}`;
        },
      }),
    );
    const seams = createSeams();
    seams.use(rewriter);
    const model = scriptedModel([
      {
        toolCalls: [
          { id: 'c1', name: 'Bash', arguments: { command: 'grep -rn TODO src' } },
          { id: 'c2', name: 'Bash', arguments: { command: 'git push origin main' } },
          { id: 'c3', name: 'Bash', arguments: { command: 'ls' } },
        ],
      },
      { text: 'done' },
    ]);
    const agent = createAgent({ seams, tools, model });
    agent.followup('go');
    await agent.whenIdle();
    await agent.dispose();
    expect(checkInvariants(agent.log.events)).toEqual([]);
    expect(ran).toEqual(['rg -rn TODO src', 'git push origin main --dry-run', 'ls']);
    const calls = agent.log.events.filter((event) => event.type === 'tool/call').map((event) => event.data);
    expect(calls).toEqual([
      {
        turn: 1,
        step: 1,
        callId: 'c1',
        name: 'Bash',
        arguments: '{"command":"rg -rn TODO src"}',
        original: '{"command":"grep -rn TODO src"}',
        rewrites: [{ by: 'rewriter.routeGrep', reason: 'rg skips .gitignored files' }],
      },
      {
        turn: 1,
        step: 1,
        callId: 'c2',
        name: 'Bash',
        arguments: '{"command":"git push origin main --dry-run"}',
        original: '{"command":"git push origin main"}',
        rewrites: [{ by: 'rewriter.dryRunPush' }],
      },
      { turn: 1, step: 1, callId: 'c3', name: 'Bash', arguments: '{"command":"ls"}' },
    ]);
  });

  it('is the code docs/seams.md shows', () => {
    const source = readFileSync(new URL(import.meta.url), 'utf8');
    const region = source.split('// #region example\n')[1]!.split('// #endregion example')[0]!;
    const docs = readFileSync(new URL('../../../docs/seams.md', import.meta.url), 'utf8');
    expect(docs).toContain(region.trim());
  });
});
