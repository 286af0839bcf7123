import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  checkInvariants,
  claudeCodeHooks,
  createAgent,
  createDemoTools,
  createSeams,
  createToolRegistry,
  describeThrown,
  formatCapabilities,
  formatViolation,
  type SeamPlugin,
  scriptedModel,
} from '../index.js';
import { ignoreBrokenPipes } from './brokenPipe.js';
import { Screen } from './screen.js';
import { Transcript } from './transcript.js';

const examplesDir = fileURLToPath(new URL('../examples/claude-code', import.meta.url));

/** A native plugin beside the shell hooks: it rewrites every prompt, carrying downstream contexts forward. */
const briefAnswers: SeamPlugin = {
  name: 'brief-answers',
  apply(seams) {
    seams.on('agent/prompt-submit', async function rewritePrompt(ctx, next) {
      const decision = await next();
      if (decision.kind !== 'allow') return decision;
      const text = ctx.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      return { ...decision, content: [{ type: 'text', text: `${text} (answer briefly)` }] };
    });
  },
};

/** Adapts a line writer to the renderer's text sink (which may write partial lines). */
function lineSink(write: (line: string) => void) {
  let pending = '';
  return {
    write(text: string) {
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) write(line);
    },
  };
}

/** The scripted model: write a file and try a destructive command; after the Stop hook, read it back. */
// `chunkDelayMs` spaces the streamed chunks out, so the text is seen arriving as from a real model.
const script = scriptedModel([
  {
    text: 'I will save a note, then clean up.',
    chunkDelayMs: 40,
    toolCalls: [
      { id: 'c1', name: 'Write', arguments: { file_path: 'notes.txt', content: 'hello from seamchart' } },
      { id: 'c2', name: 'Bash', arguments: { command: 'rm -rf ./*' } },
    ],
  },
  { text: 'Saved notes.txt. The cleanup was refused by a hook.', chunkDelayMs: 40 },
  { toolCalls: [{ id: 'c3', name: 'Read', arguments: { file_path: 'notes.txt' } }] },
  { text: 'notes.txt says "hello from seamchart"; that is the file I changed.', chunkDelayMs: 40 },
]);

/** The system prompt of every request (the scripted model records it; a real one would follow it). */
const instructions = ({ turn, step }: { turn: number; step: number }) =>
  `You tidy a scratch directory with the tools given. Keep answers short. (turn ${turn}, step ${step})`;

/**
 * The offline demo behind `npm start`: a scripted model, the demo toolset in a scratch directory,
 * the example Claude Code hooks config and one native plugin; prints the turn as it happens.
 * @returns the exit code (0 when the log passes every invariant)
 */
export async function runDemo(write: (line: string) => void = console.log): Promise<number> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'seamchart-demo-'));
  try {
    const seams = createSeams();
    const tools = createToolRegistry();
    for (const tool of createDemoTools({ root: scratch })) tools.register(tool);
    const hooks = await claudeCodeHooks(path.join(examplesDir, 'settings.json'), { projectDir: examplesDir });
    write(
      'seamchart demo: scripted model, demo tools, examples/claude-code/settings.json, one native plugin',
    );
    write(formatCapabilities(hooks.capabilities()));
    seams.use(hooks);
    seams.use(briefAnswers);
    // The same renderer as `seamchart run`, also showing every decision and who made it.
    // Printing to the terminal, streamed text goes straight out; a caller's line writer gets whole lines.
    const sink =
      write === console.log ? { write: (text: string) => void process.stdout.write(text) } : lineSink(write);
    const transcript = new Transcript(new Screen(sink, undefined, false), { showDecisions: true });
    seams.on('session/event', ({ event }) => transcript.event(event));
    seams.on('seam/decided', (decision) => transcript.decided(decision));
    seams.on('model/delta', ({ delta }) => transcript.delta(delta));
    seams.on('agent/error', ({ origin, error }) => transcript.error(origin, error.message));

    write(`instructions: ${instructions({ turn: 1, step: 1 })}`);
    const agent = createAgent({ seams, tools, model: script, id: 'demo', cwd: scratch, instructions });
    agent.followup('Tidy up the scratch directory');
    await agent.whenIdle();
    await agent.dispose();
    const sent = script.requests.map((request) => request.instructions);
    write(`the model got the instructions on ${sent.filter(Boolean).length} of ${sent.length} requests`);

    const violations = checkInvariants(agent.log.events);
    for (const violation of violations) write(`invariant violated: ${formatViolation(violation)}`);
    write(violations.length === 0 ? 'invariants: ok' : `invariants: ${violations.length} violation(s)`);
    return violations.length === 0 ? 0 : 1;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

const isMain = process.argv[1] !== undefined && /[\\/]cli[\\/]demo\.(ts|js)$/.test(process.argv[1]);
if (isMain) {
  ignoreBrokenPipes();
  runDemo().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`demo failed: ${describeThrown(error)}`);
      process.exitCode = 1;
    },
  );
}
