import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSeams, createToolRegistry, defineTool } from 'seamchart';
import { describe, expect, it } from 'vitest';
import type { AnyActorRef, AnyStateNode, InspectionEvent } from 'xstate';
import { z } from 'zod';
import { toolCallMachine } from '../../../machines/toolCall.js';
import { createTestAgent } from '../../../testing/index.js';

// E02: every call — batched with no decision listener, standalone `tools.execute`, and with listeners —
// passes through the toolCall chart, and inspection sees that chart's states for each.

/** Every state of the toolCall chart, as `a.b` paths (the same form `statePath` gives a snapshot's value). */
const chartStates = new Set<string>();
const collectStates = (node: AnyStateNode, prefix: string): void => {
  for (const [key, child] of Object.entries(node.states)) {
    chartStates.add(`${prefix}${key}`);
    collectStates(child, `${prefix}${key}.`);
  }
};
collectStates(toolCallMachine.root, '');

/** The deepest state of a value, as `a.b` (a call's chart has no parallel regions). */
function statePath(value: unknown): string {
  const parts: string[] = [];
  for (let at = value; at !== undefined; ) {
    if (typeof at === 'string') {
      parts.push(at);
      break;
    }
    const [key, inner] = Object.entries(at as Record<string, unknown>)[0] ?? [];
    if (key === undefined) break;
    parts.push(key);
    at = inner;
  }
  return parts.join('.');
}

/** What inspection shows of each toolCall chart: every microstep's state, and the states it rested in. */
function recordCalls() {
  const calls = new Map<AnyActorRef, { steps: string[]; resting: string[]; callId: string }>();
  const isCall = (ref: AnyActorRef): boolean => (ref as { logic?: { id?: string } }).logic?.id === 'toolCall';
  const of = (ref: AnyActorRef) => {
    const known = calls.get(ref);
    if (known !== undefined) return known;
    const call = { steps: [] as string[], resting: [] as string[], callId: '' };
    calls.set(ref, call);
    return call;
  };
  return {
    calls,
    /** Where the chart of `callId` is now: entry actions run inside a microstep, before inspection reports it. */
    momentOf(callId: string): { steps: string[]; at: number } | undefined {
      // A call learns its id in the microstep that reads the request, which may be the one running now.
      const call =
        [...calls.values()].find((c) => c.callId === callId) ?? [...calls.values()].find((c) => !c.callId);
      return call && { steps: call.steps, at: call.steps.length };
    },
    inspect(event: InspectionEvent): void {
      const ref = event.actorRef as AnyActorRef;
      if (!isCall(ref)) return;
      if (event.type === '@xstate.actor') of(ref);
      if (event.type !== '@xstate.microstep' && event.type !== '@xstate.snapshot') return;
      const snapshot = event.snapshot as unknown as { value: unknown; context?: { callId?: string } };
      const call = of(ref);
      if (snapshot.context?.callId) call.callId = snapshot.context.callId;
      const path = statePath(snapshot.value);
      if (event.type === '@xstate.microstep') call.steps.push(path);
      else call.resting.push(path);
    },
  };
}

type Moment = { steps: string[]; at: number } | undefined;

/** A tool whose body records where its call's chart is while the body runs. */
function echoWatching(momentOf: (callId: string) => Moment, seenInBody: Moment[]) {
  return defineTool({
    name: 'echo',
    description: 'echoes',
    parameters: z.object({ text: z.string() }),
    concurrency: 'parallel',
    execute: ({ text }, exec) => {
      seenInBody.push(momentOf(exec.callId));
      return text;
    },
  });
}

async function inAgent(listened: boolean) {
  const recorder = recordCalls();
  const inBody: Moment[] = [];
  const tools = createToolRegistry();
  tools.register(echoWatching(recorder.momentOf, inBody));
  const { agent, seams, eventTypes, expectInvariants } = createTestAgent({
    script: [{ toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'hi' } }] }, { text: 'done' }],
    tools,
    options: { inspect: recorder.inspect },
  });
  if (listened) {
    seams.on('tools/pre-execute', (_ctx, next) => next());
    seams.on('tools/post-execute', (_ctx, next) => next());
  }
  agent.followup('go');
  await agent.whenIdle();
  await agent.dispose();
  expectInvariants();
  expect(eventTypes()).toContain('tool/result');
  return { calls: [...recorder.calls.values()], inBody };
}

async function standalone() {
  const recorder = recordCalls();
  const inBody: Moment[] = [];
  const tools = createToolRegistry();
  tools.register(echoWatching(recorder.momentOf, inBody));
  const result = await tools.execute(
    { callId: 's1', name: 'echo', arguments: '{"text":"hi"}' },
    { seams: createSeams(), inspect: recorder.inspect },
  );
  expect(result).toMatchObject({ isError: false, value: 'hi' });
  return { calls: [...recorder.calls.values()], inBody };
}

describe('E02 one chart per call', () => {
  it('E02 a batched call with no listener, a standalone tools.execute and a listened call each run the toolCall chart', async () => {
    const runs = {
      batched: await inAgent(false),
      standalone: await standalone(),
      listened: await inAgent(true),
    };
    for (const [kind, { calls, inBody }] of Object.entries(runs)) {
      // One chart per call, every state it shows is a state of the toolCall chart, and it ends in `done`.
      expect(calls, kind).toHaveLength(1);
      const [call] = calls;
      for (const state of [...call!.steps, ...call!.resting])
        expect(chartStates, `${kind}: ${state}`).toContain(state);
      expect(call!.resting.at(-1), kind).toBe('done');
      // The body runs once, started by the microstep that enters the chart's dispatching state.
      expect(
        inBody.map((moment) => moment?.steps[moment.at]),
        kind,
      ).toEqual(['dispatching.running']);
    }
    // The empty phases are still the chart's states, passed through in eventless steps (never rested in).
    const batched = runs.batched.calls[0]!;
    for (const skipped of ['sealing', 'guards.checking', 'dispatching.reporting', 'postExecute.checking']) {
      expect(batched.steps).toContain(skipped);
      expect(batched.resting).not.toContain(skipped);
    }
    expect(batched.steps).toContain('settled.awaitingCommit');
    // The listened call waits in the phases its listeners decide.
    const listened = runs.listened.calls[0]!;
    expect(listened.resting).toContain('preExecute.deciding');
    expect(listened.resting).toContain('postExecute.reviewing');
    expect(batched.resting).not.toContain('preExecute.deciding');
    // Standalone, nothing to decide: from reading the request straight to the body, then the result.
    expect(runs.standalone.calls[0]!.resting).toEqual(['preparing.detaching', 'dispatching.running', 'done']);
  });

  it('E02 no module implements a call pipeline beside the chart: only the dispatch phase runs a tool body', () => {
    // A tool body is started by `tool.execute(`; the only caller is the dispatch phase's runner, which
    // the chart's `dispatching.running` state starts.
    const root = join(import.meta.dirname, '../../..');
    const callers: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (!['node_modules', 'test', 'dist', 'bench', '.git', 'examples', 'docs'].includes(entry.name))
            walk(path);
        } else if (
          entry.name.endsWith('.ts') &&
          /\btool\.execute\(/.test(readFileSync(join(root, path), 'utf8'))
        )
          callers.push(path);
      }
    };
    walk('.');
    expect(callers).toEqual(['tools/dispatch.ts']);
  });
});
