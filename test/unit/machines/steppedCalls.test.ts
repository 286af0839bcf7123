import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { z } from 'zod';
import { checkInvariants, formatViolation } from '../../../session/index.js';
import { repairEvents } from '../../../session/repair.js';
import { createTestAgent } from '../../../testing/index.js';
import { defineTool } from '../../../tools/index.js';
import { logOf } from '../session/build.js';

const echo = defineTool({
  name: 'echo',
  description: 'echoes',
  parameters: z.object({ text: z.string() }),
  concurrency: 'parallel',
  execute: ({ text }) => text,
});
const until = async (ok: () => boolean) => {
  while (!ok()) await new Promise((r) => setTimeout(r, 1));
};

describe('calls stepped inside the batch, in an agent', () => {
  let warn: { mock: { calls: unknown[][] }; mockRestore(): void };
  beforeEach(() => {
    warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  });
  afterEach(() => warn.mockRestore());

  it('a call with a decision listener logs no XState warning', async () => {
    const { agent, seams, expectInvariants } = createTestAgent({
      tools: [echo],
      script: [{ toolCalls: [{ id: 'c1', name: 'echo', arguments: { text: 'x' } }] }, { text: 'done' }],
    });
    seams.on('tools/pre-execute', (_exec, next) => next());
    agent.followup('go');
    await agent.whenIdle();
    await agent.dispose();
    expectInvariants();
    expect(warn.mock.calls.map((args) => String(args[0]))).toEqual([]);
  });

  // c1 reviews (its listener hangs) while c2 waits for its commit; the cancel aborts both, then c2 is
  // committed and reviews under what is left of its grace, which runs out on the system scheduler.
  const graceRun = (graceMs: number, inspect: (event: InspectionEvent) => void) => {
    const test = createTestAgent({
      tools: [echo],
      script: [
        {
          toolCalls: [
            { id: 'c1', name: 'echo', arguments: { text: 'a' } },
            { id: 'c2', name: 'echo', arguments: { text: 'b' } },
          ],
        },
        { text: 'done' },
      ],
      options: { cancelGraceMs: graceMs, inspect },
    });
    const reviewing: string[] = [];
    test.seams.on('tools/post-execute', ({ exec }) => {
      reviewing.push(exec.callId);
      return new Promise(() => {});
    });
    return { test, reviewing };
  };

  it('inspection sees the cancel grace running out once', async () => {
    const events: string[] = [];
    const { test, reviewing } = graceRun(30, (event) => {
      if (event.type === '@xstate.event' && (event.actorRef as AnyActorRef).id === 'call-1')
        events.push(event.event.type);
    });
    test.agent.followup('go');
    await until(() => reviewing.length === 1 && test.eventData('tool/call').length === 2);
    await new Promise((r) => setTimeout(r, 10));
    test.agent.cancel();
    await test.agent.whenIdle();
    await test.agent.dispose();
    test.expectInvariants();
    expect(reviewing).toEqual(['c1', 'c2']);
    expect(events.filter((type) => type === 'CANCEL_GRACE_OVER')).toEqual(['CANCEL_GRACE_OVER']);
  });

  // Watches `call-1` (the second call's machine) in inspection, runs until c1 reviews and c2 waits, cancels.
  // `graceOver` counts the grace timers that fired (CANCEL_GRACE_OVER taken by a call).
  const cancelWhileReviewing = async (graceMs: number) => {
    let call: AnyActorRef | undefined;
    let graceOver = 0;
    const run = graceRun(graceMs, (event) => {
      if (event.type === '@xstate.actor' && (event.actorRef as AnyActorRef).id === 'call-1')
        call = event.actorRef as AnyActorRef;
      if (event.type === '@xstate.event' && event.event.type === 'CANCEL_GRACE_OVER') graceOver++;
    });
    run.test.agent.followup('go');
    await until(() => run.reviewing.length === 1 && run.test.eventData('tool/call').length === 2);
    await new Promise((r) => setTimeout(r, 10));
    run.test.agent.cancel();
    return { ...run, call: () => call!, graceOver: () => graceOver };
  };

  it('stopping the agent while a call reviews in its grace leaves no timer and warns of nothing', async () => {
    const graceMs = 1_000;
    const { test, reviewing, call, graceOver } = await cancelWhileReviewing(graceMs);
    await until(() => reviewing.length === 2);
    test.agent.actor.stop();
    // The stepped call was stopped with its batch: its grace timer never fires.
    expect(call().getSnapshot().status).toBe('stopped');
    await new Promise((r) => setTimeout(r, graceMs + 200));
    expect(graceOver()).toBe(0);
    expect(warn.mock.calls.map((args) => String(args[0]))).toEqual([]);
    // A hard stop leaves the turn open, as a crash would: the log a resume repairs keeps every invariant.
    const { events } = test.agent.log;
    const repaired = logOf(
      ...events.map(({ type, data }) => ({ type, data })),
      ...repairEvents(events).events,
    );
    expect(checkInvariants(repaired).map(formatViolation)).toEqual([]);
  });

  it('after a cancelled run whose review grace ran out, each grace fired once and the calls are done', async () => {
    const { test, call, graceOver } = await cancelWhileReviewing(30);
    await test.agent.whenIdle();
    await test.agent.dispose();
    test.expectInvariants();
    expect(call().getSnapshot().status).toBe('done');
    await new Promise((r) => setTimeout(r, 60));
    expect(graceOver()).toBe(1);
  });
});
