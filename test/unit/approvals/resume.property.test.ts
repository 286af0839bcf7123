import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LogEvent } from '../../../kernel/index.js';
import { type Agent, createAgent } from '../../../machines/agent/createAgent.js';
import { createToolRegistry } from '../../../machines/toolCall/createToolRegistry.js';
import { scriptedModel } from '../../../model/index.js';
import type { ScriptStep } from '../../../model/script.js';
import { createSeams } from '../../../seams/index.js';
import { ApprovalError, checkInvariants, formatViolation, hashArguments } from '../../../session/index.js';
import type { SessionStore } from '../../../session/types.js';
import { defineTool } from '../../../tools/index.js';
import { createJsonlStore, createSessionDir, openJsonlStore, type Ran } from './scenario.js';

// 200 runs in CI; SEAMCHART_APPROVAL_PROPERTY_RUNS=5000 for a local soak (docs/testing.md).
const numRuns = Number(process.env.SEAMCHART_APPROVAL_PROPERTY_RUNS ?? 200);

type ToolName = 'ask' | 'askx' | 'read' | 'wipe';
const TOOLS: readonly { name: ToolName; concurrency: 'parallel' | 'exclusive' }[] = [
  { name: 'ask', concurrency: 'parallel' },
  { name: 'askx', concurrency: 'exclusive' },
  { name: 'read', concurrency: 'parallel' },
  { name: 'wipe', concurrency: 'exclusive' },
];
const asks = (name: string): boolean => name.startsWith('ask');

/** Every tool records its body's run (call id and the input it got). */
function propertyTools(ran: Ran) {
  const tools = createToolRegistry();
  for (const { name, concurrency } of TOOLS)
    tools.register(
      defineTool({
        name,
        description: name,
        parameters: z.object({ target: z.string(), env: z.string().optional() }),
        concurrency,
        execute: (args, exec) => {
          ran.push({ callId: exec.callId, tool: name, args });
          return `${name} ${args.target} done`;
        },
      }),
    );
  return tools;
}

/** One answer plan step: answer a pending request, answer an answered one again, or restart the process. */
type Action =
  | { kind: 'resolve'; pick: number; allow: boolean; staleHash: boolean }
  | { kind: 'again'; pick: number; same: boolean }
  | { kind: 'restart' };

interface Scenario {
  readonly script: readonly ScriptStep[];
  readonly maxParallel: number;
  readonly actions: readonly Action[];
}

const call = fc.record({
  tool: fc.constantFrom<ToolName>('ask', 'ask', 'askx', 'read', 'wipe'),
  target: fc.constantFrom('web', 'db', 'cache'),
});
const batch = fc.array(call, { minLength: 1, maxLength: 5 });
const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('resolve' as const),
      pick: fc.nat(9),
      allow: fc.boolean(),
      staleHash: fc.nat(9).map((n) => n === 0),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('again' as const), pick: fc.nat(9), same: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'restart' as const }) },
);
const scenario: fc.Arbitrary<Scenario> = fc.record({
  script: fc.array(batch, { minLength: 1, maxLength: 2 }).map((batches): ScriptStep[] => [
    ...batches.map((calls, step) => ({
      toolCalls: calls.map((c, index) => ({
        id: `s${step + 1}c${index + 1}`,
        name: c.tool,
        arguments: { target: c.target },
      })),
    })),
    { text: 'all answered' },
  ]),
  maxParallel: fc.integer({ min: 1, max: 4 }),
  actions: fc.array(action, { maxLength: 30 }),
});

/** What the generated runs exercised, across all runs. */
const seen = { requests: 0, allowed: 0, rejected: 0, restarts: 0, suspensions: 0, refused: 0, noops: 0 };

/** An agent of a run on `store`; the model goes on from the log's next model step (a new process restarts its script). */
function openAgent(s: Scenario, store: SessionStore, ran: Ran): Agent {
  const seams = createSeams({ logger: { error: () => {} } });
  seams.on('tools/prepare', (ctx) =>
    asks(ctx.name) ? { kind: 'rewrite', arguments: { ...ctx.arguments, env: 'prod' } } : undefined,
  );
  seams.on(
    'tools/pre-execute',
    (exec) => (asks(exec.name) ? { kind: 'ask', reason: 'needs a person' } : { kind: 'allow' }),
    {
      name: 'policy',
    },
  );
  const modelSteps = store.initialEvents.filter((event) => event.type === 'assistant/message').length;
  return createAgent({
    seams,
    tools: propertyTools(ran),
    model: scriptedModel(s.script.slice(modelSteps)),
    store,
    approval: 'defer',
    maxParallelToolCalls: s.maxParallel,
    logger: { error: () => {} },
  });
}

/** An `ApprovalError`'s code, or a description of what the promise did instead. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    return error instanceof ApprovalError ? error.code : String(error);
  }
}

/** Runs one scenario to its end; returns every broken promise of approvals.md it found. */
async function runScenario(s: Scenario): Promise<string[]> {
  const problems: string[] = [];
  const session = createSessionDir();
  const ran: Ran = [];
  const answers = new Map<string, 'allowed-once' | 'rejected'>();
  let agent = openAgent(s, await createJsonlStore(session.file), ran);
  const bytes = () => readFileSync(session.file, 'utf8');
  try {
    agent.followup('go');
    await agent.whenIdle();
    let next = 0;
    for (let rounds = 0; agent.status === 'suspended'; rounds++) {
      if (rounds > 200) {
        problems.push('still suspended after 200 answers');
        break;
      }
      seen.suspensions++;
      problems.push(
        ...checkInvariants(agent.log.events).map((v) => `while suspended: ${formatViolation(v)}`),
      );
      // After the plan: allow the first pending request, so every run ends.
      const act = s.actions[next++] ?? { kind: 'resolve', pick: 0, allow: true, staleHash: false };
      if (act.kind === 'restart') {
        await agent.dispose();
        agent = openAgent(s, await openJsonlStore(session.file), ran);
        await agent.whenIdle();
        seen.restarts++;
      } else if (act.kind === 'again') {
        const ids = [...answers.keys()];
        if (ids.length === 0) continue;
        const id = ids[act.pick % ids.length]!;
        const given = answers.get(id)!;
        const before = bytes();
        if (act.same) {
          const code = await refusal(agent.resolveApproval(id, { outcome: given }));
          if (code !== 'resolved') problems.push(`the same answer to ${id} again was refused: ${code}`);
          seen.noops++;
        } else {
          const code = await refusal(
            agent.resolveApproval(id, { outcome: given === 'allowed-once' ? 'rejected' : 'allowed-once' }),
          );
          if (code !== 'APPROVAL_ALREADY_RESOLVED') problems.push(`a different answer to ${id}: ${code}`);
          seen.refused++;
        }
        if (bytes() !== before) problems.push(`answering ${id} again wrote to the log`);
      } else {
        const pending = agent.approvals();
        if (pending.length === 0) {
          problems.push('suspended with no pending request');
          break;
        }
        const request = pending[act.pick % pending.length]!;
        if (act.staleHash) {
          const before = bytes();
          const code = await refusal(
            agent.resolveApproval(request.requestId, { outcome: 'allowed-once', argsHash: '0'.repeat(64) }),
          );
          if (code !== 'APPROVAL_STALE') problems.push(`a stale argsHash for ${request.requestId}: ${code}`);
          if (bytes() !== before) problems.push('a stale answer wrote to the log');
          seen.refused++;
          continue;
        }
        const outcome = act.allow ? 'allowed-once' : 'rejected';
        await agent.resolveApproval(request.requestId, { outcome, argsHash: request.argsHash });
        answers.set(request.requestId, outcome);
        seen[act.allow ? 'allowed' : 'rejected']++;
        await agent.whenIdle();
      }
    }
    problems.push(...judge(s, agent.log.events, ran));
  } finally {
    await agent.dispose();
    session.cleanup();
  }
  return problems;
}

/** Every call ran at most once, only with an allowed-once for its exact input; results in model order; the turn ended. */
function judge(s: Scenario, events: readonly LogEvent[], ran: Ran): string[] {
  const problems = checkInvariants(events, { atRest: true }).map((v) => `at rest: ${formatViolation(v)}`);
  const requests = events
    .filter((e) => e.type === 'approval/requested')
    .map((e) => e.data as { requestId: string; callId: string; argsHash: string });
  seen.requests += requests.length;
  const outcomes = new Map<string, string>();
  for (const event of events)
    if (event.type === 'approval/resolved') {
      const data = event.data as { requestId: string; outcome: string };
      if (!outcomes.has(data.requestId)) outcomes.set(data.requestId, data.outcome);
    }
  const runs = new Map<string, number>();
  for (const body of ran) {
    runs.set(body.callId, (runs.get(body.callId) ?? 0) + 1);
    if (!asks(body.tool)) continue;
    const hash = hashArguments(body.args as never);
    const granted = requests.some(
      (r) => r.callId === body.callId && r.argsHash === hash && outcomes.get(r.requestId) === 'allowed-once',
    );
    if (!granted) problems.push(`${body.callId} ran without an allowed-once for its exact input`);
  }
  for (const [callId, count] of runs) if (count > 1) problems.push(`${callId} ran ${count} times`);
  // Each model step's results, in the order the model asked for the calls.
  let asked: string[] = [];
  let results: string[] = [];
  const stepEnds = (): void => {
    if (results.join() !== asked.join())
      problems.push(`results ${results.join()} not in model order ${asked.join()}`);
    asked = [];
    results = [];
  };
  for (const event of events) {
    if (event.type === 'assistant/message')
      asked = (event.data as { content: { type: string; id?: string }[] }).content
        .filter((block) => block.type === 'tool-call')
        .map((block) => block.id!);
    else if (event.type === 'tool/result') results.push((event.data as { callId: string }).callId);
    else if (event.type === 'step/end') stepEnds();
  }
  const ends = events
    .filter((e) => e.type === 'turn/end')
    .map((e) => (e.data as { reason: { kind: string } }).reason.kind);
  if (ends.join() !== 'completed') problems.push(`the turn ended ${ends.join() || 'never'}`);
  const allSteps = s.script.length;
  const modelSteps = events.filter((e) => e.type === 'assistant/message').length;
  if (modelSteps !== allSteps) problems.push(`${modelSteps} model steps of ${allSteps}`);
  return problems;
}

describe('deferred approvals across restarts', () => {
  it(
    `V03 property: random subsets of parallel deferred approvals answered in random orders across random restarts — every call runs at most once, only with an allowed-once for its exact input, results in model order, 0 invariant violations (${numRuns} runs)`,
    async () => {
      const started = performance.now();
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          expect(await runScenario(s)).toEqual([]);
        }),
        { numRuns },
      );
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`approvals property: ${numRuns} runs in ${seconds} s; ${JSON.stringify(seen)}`);
      // The generator really answered both ways, restarted, and refused answers.
      expect(seen.allowed).toBeGreaterThan(numRuns / 2);
      expect(seen.rejected).toBeGreaterThan(numRuns / 4);
      expect(seen.restarts).toBeGreaterThan(numRuns / 4);
      expect(seen.refused).toBeGreaterThan(numRuns / 20);
    },
    Math.max(120_000, numRuns * 400),
  );
});
