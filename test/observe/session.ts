import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { claudeCodeHooks } from '../../bridges/index.js';
import { createAgent, createToolRegistry } from '../../machines/index.js';
import { scriptedModel } from '../../model/index.js';
import { createSeams } from '../../seams/index.js';
import { checkInvariants, createJsonlStore } from '../../session/index.js';
import { defineTool } from '../../tools/index.js';
import { fixture, hooksConfig } from '../bridges/harness.js';

/**
 * Writes a real session to `file` with what the inspector must show: two parallel reads (one with a
 * rewritten path, one whose hook crashes), a hook's denial, a call asked about and approved, usage.
 * Returns the invariant violations of the log it wrote (none expected).
 */
export async function writeInspectedSession(file: string, cwd: string): Promise<unknown[]> {
  const seams = createSeams();
  seams.use(
    await claudeCodeHooks(
      hooksConfig({
        PreToolUse: [
          { matcher: 'Bash', commands: [fixture('bash-validator.py')] },
          { matcher: 'Read', commands: [fixture('crash.py')] },
        ],
      }),
    ),
  );
  seams.on(
    'tools/prepare',
    (ctx) => {
      const input = ctx.arguments as { path?: string };
      return ctx.name === 'Read' && input.path?.startsWith('./')
        ? {
            kind: 'rewrite',
            arguments: { path: input.path.slice(2) },
            reason: 'paths are relative to the project',
          }
        : { kind: 'keep' };
    },
    { name: 'path-normalizer' },
  );
  seams.on(
    'tools/pre-execute',
    (exec, next) =>
      (exec.arguments as { command?: string }).command === 'npm publish'
        ? { kind: 'ask', reason: 'publishing needs a yes' }
        : next(),
    { name: 'publish-gate' },
  );
  // The two reads really overlap, however slow their hooks are on a loaded machine: each body waits for the other's start.
  let bothStarted: () => void = () => {};
  const overlap = new Promise<void>((resolve) => {
    let started = 0;
    bothStarted = () => {
      started += 1;
      if (started === 2) resolve();
    };
  });
  const tools = createToolRegistry();
  tools.register(
    defineTool({
      name: 'Read',
      description: 'reads a file (test double)',
      parameters: z.object({ path: z.string() }),
      concurrency: 'parallel',
      execute: async ({ path }) => {
        bothStarted();
        await overlap;
        await sleep(path === 'README.md' ? 120 : 60);
        return `contents of ${path}`;
      },
    }),
  );
  tools.register(
    defineTool({
      name: 'Bash',
      description: 'runs a command (test double)',
      parameters: z.object({ command: z.string() }),
      execute: ({ command }) => ({ stdout: `ran ${command}`, exitCode: 0 }),
    }),
  );
  const call = (id: string, name: string, args: Record<string, string>) => ({ id, name, arguments: args });
  const model = scriptedModel([
    {
      toolCalls: [
        call('read-1', 'Read', { path: './README.md' }),
        call('read-2', 'Read', { path: 'package.json' }),
      ],
      usage: { inputTokens: 1200, outputTokens: 80 },
    },
    {
      toolCalls: [
        call('bash-1', 'Bash', { command: 'rm -rf build' }),
        call('bash-2', 'Bash', { command: 'npm publish' }),
      ],
      usage: { inputTokens: 1450, outputTokens: 60 },
    },
    {
      text: 'Read both files, did not delete build/, published after your yes.',
      usage: { inputTokens: 1600, outputTokens: 40 },
    },
  ]);
  const store = await createJsonlStore(file);
  const agent = createAgent({
    seams,
    tools,
    model,
    store,
    cwd,
    approval: { request: async () => ({ outcome: 'allowed-once', reason: 'go ahead' }) },
  });
  agent.followup('tidy the project and publish it');
  await agent.whenIdle();
  const violations = checkInvariants(agent.log.events);
  await agent.dispose();
  return violations;
}
