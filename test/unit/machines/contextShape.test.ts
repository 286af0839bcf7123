import { describe, expect, it } from 'vitest';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { z } from 'zod';
import { createTestAgent } from '../../../testing/index.js';
import { defineTool } from '../../../tools/index.js';

// XState's `assign` copies the context with `Object.assign({}, context, update)`; from 20 top-level keys
// on, V8 makes that copy a slow dictionary (every later read a hash lookup). decisions.md records why.
const FAST_MODE_KEYS = 20;

const echo = defineTool({
  name: 'echo',
  description: 'Echo the text',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

describe('the agent, turn and toolCall contexts stay under 20 top-level keys', () => {
  it('in every snapshot of a two-step turn with a stepped tool call, steering and five turn seams listened to', async () => {
    const widest = new Map<string, number>();
    const inspect = (event: InspectionEvent): void => {
      if (event.type !== '@xstate.snapshot') return;
      const { context } = event.snapshot as { context?: object };
      const actor = event.actorRef as AnyActorRef;
      const id = actor.id;
      const isCall = id.startsWith('call-');
      if (context === undefined || (id !== 'turn' && !isCall && actor._parent !== undefined)) return;
      const name = id === 'turn' ? 'turn' : isCall ? 'toolCall' : 'agent';
      widest.set(name, Math.max(widest.get(name) ?? 0, Object.keys(context).length));
    };
    const { agent, seams, expectInvariants } = createTestAgent({
      tools: [echo],
      script: [{ toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'x' } }] }, { text: 'done' }],
      options: { inspect },
    });
    seams.on('agent/prompt-submit', () => ({ kind: 'allow' }));
    seams.on('agent/pre-step', () => {});
    seams.on('agent/post-step', () => {});
    seams.on('agent/turn-continuation', (ctx) => ctx.defaultDecision);
    seams.on('agent/turn-stop', () => undefined);
    // A decision listener, so the call is a toolCall actor (with none it runs on the batch's direct path).
    seams.on('tools/pre-execute', (_exec, next) => next());
    agent.followup('hello');
    agent.steer('and this');
    await agent.whenIdle();
    await agent.dispose();
    expectInvariants();
    expect(widest.get('agent')).toBeLessThan(FAST_MODE_KEYS);
    expect(widest.get('turn')).toBeLessThan(FAST_MODE_KEYS);
    expect(widest.get('toolCall')).toBeLessThan(FAST_MODE_KEYS);
  });
});
