import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { claudeCodeHooks } from '../../bridges/index.js';
import type { LogEvent } from '../../kernel/index.js';
import { createAgent, createToolRegistry } from '../../machines/index.js';
import { scriptedModel } from '../../model/index.js';
import { createSeams } from '../../seams/index.js';
import { checkInvariants, readJsonlLog } from '../../session/index.js';
import { defineTool } from '../../tools/index.js';
import { createHookAgent, fixture, hooksConfig, useScratchSessions } from '../bridges/harness.js';

const session = useScratchSessions();

const call = (id: string, command: string) => ({ id, name: 'Bash', arguments: { command } });
const dataOf = <T>(events: readonly LogEvent[], type: string): T[] =>
  events.filter((event) => event.type === type).map((event) => event.data as T);

interface ResultData {
  callId: string;
  isError: boolean;
  decidedBy?: Record<string, string>;
}

function nativeAgent() {
  const seams = createSeams();
  seams.on(
    'agent/prompt-submit',
    (ctx) =>
      ctx.content.some((block) => block.type === 'text' && block.text.includes('secret'))
        ? { kind: 'block', reason: 'no secrets' }
        : { kind: 'allow', content: [{ type: 'text', text: 'rewritten prompt' }] },
    { name: 'prompt-policy' },
  );
  seams.on(
    'tools/pre-execute',
    (exec, next) => {
      const { command } = exec.arguments as { command: string };
      if (command.startsWith('rm')) return { kind: 'deny', reason: 'no deletes' };
      if (command.startsWith('deploy')) return { kind: 'ask', reason: 'deploys need a yes' };
      return next();
    },
    { name: 'pre-policy' },
  );
  seams.on(
    'tools/pre-execute',
    (exec, next) => ((exec.arguments as { command: string }).command === 'pass' ? next() : next()),
    { name: 'pass-through' },
  );
  seams.guard(
    (exec) => ((exec.arguments as { command: string }).command === 'sudo' ? 'no root' : undefined),
    {
      name: 'root-guard',
    },
  );
  seams.on(
    'tools/post-execute',
    ({ exec }, next) =>
      (exec.arguments as { command: string }).command === 'cat token'
        ? { kind: 'accept', content: [{ type: 'text', text: '[redacted]' }] }
        : next(),
    { name: 'redactor' },
  );
  let continued = false;
  seams.on(
    'agent/turn-continuation',
    async (_ctx, next) => {
      const decision = await next();
      if (continued || decision.action !== 'stop') return decision;
      continued = true;
      return {
        action: 'continue',
        reason: {
          content: [{ type: 'text', text: 'check once more' }],
          source: { kind: 'plugin', plugin: 'nag' },
        },
      };
    },
    { name: 'nagger' },
  );
  seams.on('agent/turn-stop', (ctx) => (ctx.turn === 3 ? { action: 'stop', reason: 'enough' } : undefined), {
    name: 'stopper',
  });
  const tools = createToolRegistry();
  tools.register(
    defineTool({
      name: 'Bash',
      description: 'records the command',
      parameters: z.object({ command: z.string() }),
      execute: ({ command }) => `ran ${command}`,
    }),
  );
  const model = scriptedModel([
    {
      toolCalls: [
        call('c1', 'rm -rf x'),
        call('c2', 'deploy'),
        call('c3', 'sudo'),
        call('c4', 'cat token'),
        call('c5', 'pass'),
      ],
    },
    { text: 'done' },
    { text: 'really done' },
    { toolCalls: [call('c6', 'ls')] },
  ]);
  const agent = createAgent({ seams, tools, model, approval: { request: async () => 'allowed-once' } });
  return agent;
}

describe('who decided, durably', () => {
  it('O01 every decision that changed something names its native listener in the log; defaults and pass-throughs name nobody', async () => {
    const agent = nativeAgent();
    agent.followup('please work');
    await agent.whenIdle();
    agent.followup('my secret');
    await agent.whenIdle();
    agent.followup('one more');
    await agent.whenIdle();
    const { events } = agent.log;
    expect(checkInvariants(events)).toEqual([]);
    const results = dataOf<ResultData>(events, 'tool/result');
    expect(results.map((r) => [r.callId, r.decidedBy])).toEqual([
      ['c1', { preExecute: 'pre-policy' }],
      ['c2', { preExecute: 'pre-policy', approval: 'approval channel' }],
      ['c3', { guard: 'root-guard' }],
      ['c4', { postExecute: 'redactor' }],
      ['c5', undefined],
      ['c6', undefined],
    ]);
    expect(dataOf<{ decidedBy?: string }>(events, 'user/message').map((m) => m.decidedBy)).toEqual([
      'prompt-policy',
      'prompt-policy',
    ]);
    expect(dataOf<{ reason: string; decidedBy?: string }>(events, 'prompt/blocked')).toMatchObject([
      { reason: 'no secrets', decidedBy: 'prompt-policy' },
    ]);
    expect(dataOf<{ decidedBy?: string }>(events, 'steering/message').map((m) => m.decidedBy)).toEqual([
      'nagger',
    ]);
    const ends = dataOf<{ turn: number; decidedBy?: string; reason: { kind: string } }>(events, 'turn/end');
    expect(ends.map((end) => [end.turn, end.reason.kind, end.decidedBy])).toEqual([
      [1, 'completed', undefined],
      [2, 'rejected', undefined],
      [3, 'completed', 'stopper'],
    ]);
    await agent.dispose();
  });

  it('O01 a shell hook that denies, replaces output, adds a context, blocks a prompt, continues or stops is named by its handler id', async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks(
      hooksConfig({
        UserPromptSubmit: [{ commands: [fixture('plain-context.sh', 'remember the style guide')] }],
        PreToolUse: [{ matcher: 'Bash', commands: [fixture('bash-validator.py')] }],
        PostToolUse: [{ matcher: 'Bash', commands: [fixture('replace-output.sh')] }],
        Stop: [{ commands: [fixture('stop-until-marker.sh')] }],
      }),
    );
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      script: [
        { toolCalls: [call('c1', 'rm -rf /tmp/x'), call('c2', 'ls')] },
        { text: 'done' },
        { text: 'tested' },
      ],
    });
    await run.send('clean up');
    const results = run.data<ResultData>('tool/result');
    expect(results.map((r) => [r.callId, r.decidedBy])).toEqual([
      ['c1', { preExecute: 'claude-code:PreToolUse:0:0' }],
      ['c2', { postExecute: 'claude-code:PostToolUse:0:0' }],
    ]);
    const contexts = run.data<{ source: { kind: string; handlerId?: string } }>('context/message');
    expect(contexts.map((c) => c.source.handlerId)).toEqual(['claude-code:UserPromptSubmit:0:0']);
    expect(run.data<{ decidedBy?: string }>('steering/message').map((m) => m.decidedBy)).toEqual([
      'claude-code:Stop:0:0',
    ]);
    await run.finish();

    const blocking = await claudeCodeHooks(
      hooksConfig({
        UserPromptSubmit: [{ commands: [fixture('block-with-stderr.sh', 'not today')] }],
      }),
    );
    const blocked = createHookAgent({ bridges: [blocking], cwd, script: [{ text: 'never' }] });
    await blocked.send('deploy');
    expect(blocked.data<{ decidedBy?: string }>('prompt/blocked').map((b) => b.decidedBy)).toEqual([
      'claude-code:UserPromptSubmit:0:0',
    ]);
    await blocked.finish();

    const stopping = await claudeCodeHooks(
      hooksConfig({
        PostToolUse: [{ matcher: 'Bash', commands: [fixture('continue-false.sh', 'all done here')] }],
      }),
    );
    const stopped = createHookAgent({
      bridges: [stopping],
      cwd,
      script: [{ toolCalls: [call('c1', 'ls')] }, { text: 'never asked' }],
    });
    await stopped.send('list');
    expect(stopped.data<{ reason: { kind: string }; decidedBy?: string }>('turn/end')).toMatchObject([
      { reason: { kind: 'completed' }, decidedBy: 'claude-code:PostToolUse:0:0' },
    ]);
    await stopped.finish();
  });

  it('O01 a session written before decidedBy existed still loads and passes the invariants', async () => {
    const { events } = await readJsonlLog(new URL('./fixtures/pre-observe.jsonl', import.meta.url).pathname);
    expect(events.length).toBeGreaterThan(10);
    expect(events.some((event) => 'decidedBy' in (event.data as object))).toBe(false);
    expect(checkInvariants(events)).toEqual([]);
  });

  it('O01 a continuation listener that stops a turn the default would continue is named on turn/end', async () => {
    const seams = createSeams();
    seams.on(
      'agent/turn-continuation',
      async (ctx, next) =>
        ctx.step >= 1 && ctx.turn === 1 ? { action: 'stop', reason: 'budget spent' } : next(),
      { name: 'budget' },
    );
    const tools = createToolRegistry();
    tools.register(
      defineTool({
        name: 'Bash',
        description: 'records the command',
        parameters: z.object({ command: z.string() }),
        execute: ({ command }) => `ran ${command}`,
      }),
    );
    const model = scriptedModel([
      { toolCalls: [call('c1', 'ls')] },
      { toolCalls: [call('c2', 'ls')] },
      { text: 'answered' },
    ]);
    const agent = createAgent({ seams, tools, model });
    agent.followup('list');
    await agent.whenIdle();
    agent.followup('again');
    await agent.whenIdle();
    const { events } = agent.log;
    expect(checkInvariants(events)).toEqual([]);
    const ends = dataOf<{ turn: number; decidedBy?: string; reason: { kind: string } }>(events, 'turn/end');
    // Turn 1 stopped after its tool step by the listener; turn 2 ran on and stopped by default.
    expect(ends.map((end) => [end.turn, end.reason.kind, end.decidedBy])).toEqual([
      [1, 'completed', 'budget'],
      [2, 'completed', undefined],
    ]);
    expect(dataOf(events, 'step/start')).toHaveLength(3);
    await agent.dispose();
  });

  it("O01 a decision of the settings' permissions names the rule (or the mode), not the bridge", async () => {
    const cwd = await session();
    const bridge = await claudeCodeHooks({
      permissions: { deny: ['Bash(rm *)'], ask: ['Bash(git push *)'], allow: ['Bash(ls)'] },
    });
    const asked: string[] = [];
    const run = createHookAgent({
      bridges: [bridge],
      cwd,
      demoTools: true,
      approval: {
        request: async (question) => {
          asked.push(question.callId);
          return 'rejected';
        },
      },
      script: [
        {
          toolCalls: [
            call('c1', 'rm -rf build'),
            call('c2', 'git push origin main'),
            { id: 'c3', name: 'Write', arguments: { file_path: 'notes.txt', content: 'hi' } },
            call('c4', 'ls'),
          ],
        },
        { text: 'done' },
      ],
    });
    await run.send('tidy');
    expect(asked).toEqual(['c2', 'c3']);
    expect(run.data<ResultData>('tool/result').map((r) => [r.callId, r.decidedBy])).toEqual([
      ['c1', { preExecute: 'permissions: Bash(rm *) deny' }],
      ['c2', { preExecute: 'permissions: Bash(git push *) ask', approval: 'approval channel' }],
      ['c3', { preExecute: 'permissions: default mode', approval: 'approval channel' }],
      ['c4', undefined],
    ]);
    await run.finish();
  });
});
