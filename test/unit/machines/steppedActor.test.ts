import { describe, expect, it, vi } from 'vitest';
import { Actor, type AnyActorRef, createActor, type InspectionEvent, raise, setup } from 'xstate';
import { startSteppedActor } from '../../../machines/runtime/steppedActor.js';
import { releasingOnStop } from '../../../machines/runtime/stopRelease.js';

/** A machine that records what it does: GO starts work, whose action sends FINISH from inside the step. */
function createWorker(trace: string[]) {
  return setup({
    types: { input: {} as { label: string }, context: {} as { label: string }, output: {} as string },
    actions: {
      note: (_, params: { text: string }) => void trace.push(params.text),
      finishFromInside: ({ self }) => {
        self.send({ type: 'FINISH' });
        trace.push('sent FINISH');
      },
      explode: () => {
        throw new Error('the action exploded');
      },
      tickLater: raise({ type: 'TICK' }, { id: 'tick', delay: 15 }),
    },
  }).createMachine({
    id: 'worker',
    context: ({ input }) => ({ label: input.label }),
    entry: { type: 'note', params: { text: 'entry' } },
    initial: 'idle',
    states: {
      idle: {
        on: {
          GO: { target: 'working', actions: 'finishFromInside' },
          EXPLODE: { actions: 'explode' },
          LATER: { target: 'waiting', actions: 'tickLater' },
        },
      },
      working: {
        entry: { type: 'note', params: { text: 'working' } },
        on: { FINISH: { target: 'finished', actions: { type: 'note', params: { text: 'FINISH' } } } },
      },
      waiting: { on: { TICK: { target: 'finished', actions: { type: 'note', params: { text: 'TICK' } } } } },
      finished: { type: 'final' },
    },
    output: ({ context }) => `${context.label} finished`,
  });
}

/** A real root actor to host the stepped machine: its system, its inspection, its `_parent` role. */
function createHost(inspect?: (event: InspectionEvent) => void) {
  const parent = createActor(setup({}).createMachine({}), inspect ? { inspect } : {}).start();
  const ended: { done: unknown[]; failed: unknown[] } = { done: [], failed: [] };
  const host = {
    parent: parent as AnyActorRef,
    system: parent.system,
    id: 'call-0',
    sessionId: `${parent.sessionId}/call-0`,
    input: { label: 'w' },
    done: (output: unknown) => void ended.done.push(output),
    failed: (error: unknown) => void ended.failed.push(error),
  };
  return { parent, host, ended };
}

describe('a stepped machine: a parent steps it with XState transitions, no actor', () => {
  it('runs to its final state, an event sent from inside a step runs right after it, the parent hears the output', () => {
    const trace: string[] = [];
    const { host, ended } = createHost();
    const started = vi.spyOn(Actor.prototype, 'start');
    try {
      const stepped = startSteppedActor(createWorker(trace), host);
      expect(stepped.ref.getSnapshot().value).toBe('idle');
      stepped.ref.send({ type: 'GO' });
      // FINISH was sent by an action of GO's step: it ran after that step (its `working` entry), not inside it.
      expect(trace).toEqual(['entry', 'sent FINISH', 'working', 'FINISH']);
      expect(stepped.ref.getSnapshot().status).toBe('done');
      expect(ended).toEqual({ done: ['w finished'], failed: [] });
      expect(started).not.toHaveBeenCalled();
      // A machine that ended drops what it is sent, as a stopped actor would.
      stepped.step({ type: 'GO' });
      expect(trace).toHaveLength(4);
      expect(ended.done).toHaveLength(1);
    } finally {
      started.mockRestore();
    }
  });

  it('a step whose action throws ends it in error, reported once; it takes nothing more', () => {
    const trace: string[] = [];
    const { host, ended } = createHost();
    const stepped = startSteppedActor(createWorker(trace), host);
    stepped.step({ type: 'EXPLODE' });
    expect(stepped.ref.getSnapshot().status).toBe('error');
    expect(ended.done).toEqual([]);
    expect(ended.failed.map((error) => (error as Error).message)).toEqual(['the action exploded']);
    stepped.step({ type: 'GO' });
    expect(trace).toEqual(['entry']);
    expect(ended.failed).toHaveLength(1);
  });

  it('its delayed events run on the parent system scheduler, and stop() cancels them', async () => {
    const trace: string[] = [];
    const fired = createHost();
    const ticking = startSteppedActor(createWorker(trace), fired.host);
    ticking.step({ type: 'LATER' });
    expect(Object.keys(fired.parent.system.getSnapshot()._scheduledEvents)).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(trace).toEqual(['entry', 'TICK']);
    expect(fired.ended.done).toEqual(['w finished']);

    const stoppedTrace: string[] = [];
    const cut = createHost();
    const release = vi.fn();
    const logic = releasingOnStop(createWorker(stoppedTrace), release);
    const stopped = startSteppedActor(logic, cut.host);
    stopped.step({ type: 'LATER' });
    stopped.stop();
    stopped.stop();
    expect(release).toHaveBeenCalledTimes(1);
    expect(stopped.ref.getSnapshot().status).toBe('stopped');
    expect(cut.parent.system.getSnapshot()._scheduledEvents).toEqual({});
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(stoppedTrace).toEqual(['entry']);
    expect(cut.ended).toEqual({ done: [], failed: [] });
  });

  it('inspection sees it as a child of its parent: its creation, its events and its snapshots', () => {
    const seen: string[] = [];
    let parentRef: AnyActorRef | undefined;
    const { host, parent } = createHost((event) => {
      const ref = event.actorRef as AnyActorRef;
      if (ref.id !== 'call-0') return;
      parentRef = ref._parent;
      if (event.type === '@xstate.actor') seen.push('actor');
      if (event.type === '@xstate.event') seen.push(`event ${event.event.type}`);
      if (event.type === '@xstate.snapshot')
        seen.push(`snapshot ${JSON.stringify((event.snapshot as { value?: unknown }).value)}`);
    });
    const stepped = startSteppedActor(createWorker([]), host);
    stepped.step({ type: 'GO' });
    expect(seen).toEqual([
      'actor',
      'snapshot "idle"',
      'event GO',
      'snapshot "working"',
      'event FINISH',
      'snapshot "finished"',
    ]);
    expect(parentRef).toBe(parent);
    expect(stepped.ref).not.toBeInstanceOf(Actor);
  });
});
