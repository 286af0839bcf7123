import { z } from 'zod';
import {
  checkInvariants,
  createAgent,
  createSeams,
  createToolRegistry,
  defineTool,
  formatViolation,
  scriptedModel,
} from '../index.js';
import { describeEvent } from './print.js';

/** The offline demo behind `npm start`: one scripted turn, one native plugin, the log as it happens. */
export async function runDemo(write: (line: string) => void = console.log): Promise<number> {
  const seams = createSeams();
  const tools = createToolRegistry();

  // A fake shell: it only reports what it would run, so the demo never touches the machine.
  tools.register(
    defineTool({
      name: 'shell',
      description: 'Run a shell command (demo: reports the command instead of running it)',
      parameters: z.object({ command: z.string() }),
      concurrency: 'exclusive',
      execute: ({ command }) => `pretended to run: ${command}`,
    }),
  );

  seams.use({
    name: 'demo-policy',
    apply(s) {
      s.on('agent/prompt-submit', async function rewritePrompt(ctx, next) {
        const decision = await next();
        if (decision.kind !== 'allow') return decision;
        const text = ctx.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
        // Spread the downstream decision so contexts other listeners attached are carried forward.
        return { ...decision, content: [{ type: 'text', text: `${text} (answer briefly)` }] };
      });
      s.on('tools/pre-execute', function denyDestructive(exec, next) {
        const args = exec.arguments as { command?: string };
        if (typeof args.command === 'string' && /\brm\s+-rf\b/.test(args.command)) {
          return { kind: 'deny', reason: `refusing destructive command: ${args.command}` };
        }
        return next();
      });
      s.on('tools/post-execute', async function addContextAfterTool(ctx, next) {
        const decision = await next();
        if (ctx.result.isError || decision.kind !== 'accept') return decision;
        return {
          ...decision,
          additionalContexts: [
            ...(decision.additionalContexts ?? []),
            {
              content: [{ type: 'text', text: `note: ${ctx.exec.name} ran in a sandbox` }],
              source: { kind: 'plugin', plugin: 'demo-policy' },
            },
          ],
        };
      });
    },
  });

  seams.on('session/event', ({ event }) => write(describeEvent(event)));
  seams.on('seam/decided', ({ seam, decidedBy, decision }) => {
    write(`    ${seam} decided by ${decidedBy}: ${JSON.stringify(decision)}`);
  });

  const model = scriptedModel([
    {
      text: 'Let me look around, then clean up.',
      toolCalls: [
        { id: 'c1', name: 'shell', arguments: { command: 'ls' } },
        { id: 'c2', name: 'shell', arguments: { command: 'rm -rf /' } },
      ],
    },
    { text: 'I listed the files. I was not allowed to delete everything.' },
  ]);

  const agent = createAgent({ seams, tools, model, id: 'demo' });
  write('seamchart demo: a scripted model, one tool, one native plugin');
  agent.followup('Tidy up my home directory');
  await agent.whenIdle();
  await agent.dispose();

  const violations = checkInvariants(agent.log.events);
  if (violations.length === 0) {
    write('invariants: ok');
    return 0;
  }
  for (const v of violations) write(`invariant violated: ${formatViolation(v)}`);
  return 1;
}

const isMain = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) {
  runDemo().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    },
  );
}
