import { describe, expect, it, vi } from 'vitest';
import {
  Actor,
  type AnyActorRef,
  createActor,
  type InspectionEvent,
  raise,
  setup,
  spawnChild,
  stopChild,
} from 'xstate';
import { createSteppedActor, type SteppedActor } from '../../../machines/runtime/steppedActor.js';
import { createActorWithServices } from '../../../machines/runtime/systemServices.js';

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

const started = (stepped: SteppedActor): SteppedActor => {
  stepped.start();
  return stepped;
};

/** A real root actor made by the engine to host the stepped machine: its system and its inspection channel. */
function createHost(inspect?: (event: InspectionEvent) => void) {
  const parent = createActorWithServices(setup({}).createMachine({}), {}, inspect ? { inspect } : {}).start();
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
    const actorStarts = vi.spyOn(Actor.prototype, 'start');
    try {
      const stepped = started(createSteppedActor(createWorker(trace), host));
      expect(stepped.ref.getSnapshot().value).toBe('idle');
      stepped.ref.send({ type: 'GO' });
      // FINISH was sent by an action of GO's step: it ran after that step (its `working` entry), not inside it.
      expect(trace).toEqual(['entry', 'sent FINISH', 'working', 'FINISH']);
      expect(stepped.ref.getSnapshot().status).toBe('done');
      expect(ended).toEqual({ done: ['w finished'], failed: [] });
      expect(actorStarts).not.toHaveBeenCalled();
      // A machine that ended drops what it is sent, as a stopped actor would.
      stepped.send({ type: 'GO' });
      expect(trace).toHaveLength(4);
      expect(ended.done).toHaveLength(1);
    } finally {
      actorStarts.mockRestore();
    }
  });

  it('a step whose action throws ends it in error, reported once; it takes nothing more', () => {
    const trace: string[] = [];
    const { host, ended } = createHost();
    const stepped = started(createSteppedActor(createWorker(trace), host));
    stepped.send({ type: 'EXPLODE' });
    expect(stepped.ref.getSnapshot().status).toBe('error');
    expect(ended.done).toEqual([]);
    expect(ended.failed.map((error) => (error as Error).message)).toEqual(['the action exploded']);
    stepped.send({ type: 'GO' });
    expect(trace).toEqual(['entry']);
    expect(ended.failed).toHaveLength(1);
  });

  it('its delayed events run on the engine timer, and stop() cancels them and tells its subscribers once', async () => {
    const trace: string[] = [];
    const fired = createHost();
    const ticking = started(createSteppedActor(createWorker(trace), fired.host));
    ticking.send({ type: 'LATER' });
    expect(trace).toEqual(['entry']);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(trace).toEqual(['entry', 'TICK']);
    expect(fired.ended.done).toEqual(['w finished']);

    const stoppedTrace: string[] = [];
    const cut = createHost();
    const release = vi.fn();
    const stopped = started(createSteppedActor(createWorker(stoppedTrace), cut.host));
    stopped.ref.subscribe({ complete: release });
    stopped.send({ type: 'LATER' });
    stopped.stop();
    stopped.stop();
    expect(release).toHaveBeenCalledTimes(1);
    expect(stopped.ref.getSnapshot().status).toBe('stopped');
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(stoppedTrace).toEqual(['entry']);
    expect(cut.ended).toEqual({ done: [], failed: [] });
  });

  it('inspection sees it as a real child actor would be seen: its creation, its events and its snapshots', () => {
    const describe = (event: InspectionEvent): string | undefined => {
      if (event.type === '@xstate.actor') return 'actor';
      if (event.type === '@xstate.event') return `event ${event.event.type}`;
      if (event.type === '@xstate.snapshot')
        return `snapshot ${JSON.stringify((event.snapshot as { value?: unknown }).value)}`;
      return undefined;
    };
    const seen: string[] = [];
    let rootId: string | undefined;
    const { host, parent } = createHost((event) => {
      const ref = event.actorRef as AnyActorRef;
      if (ref.id !== 'call-0') return;
      rootId = event.rootId;
      const line = describe(event);
      if (line) seen.push(line);
    });
    const stepped = started(createSteppedActor(createWorker([]), host));
    stepped.send({ type: 'GO' });
    // The same machine as a spawned child of a real parent, GO sent to it the same way.
    const reference: string[] = [];
    const holder = setup({ actors: { worker: createWorker([]) } }).createMachine({
      invoke: { id: 'call-0', src: 'worker', input: { label: 'w' } },
    });
    const real = createActor(holder, {
      inspect: (event) => {
        if ((event.actorRef as AnyActorRef).id !== 'call-0') return;
        const line = describe(event);
        if (line) reference.push(line);
      },
    }).start();
    real.getSnapshot().children['call-0']!.send({ type: 'GO' });
    expect(reference).toEqual([
      'actor',
      'event xstate.init',
      'snapshot "idle"',
      'event GO',
      'event FINISH',
      'snapshot "working"',
      'snapshot "finished"',
    ]);
    expect(seen).toEqual(reference);
    expect(rootId).toBe(parent.sessionId);
    expect(stepped.ref).not.toBeInstanceOf(Actor);
  });

  it('a stop that arrives while it steps (its holder closed it) ends it stopped once the step is over, with no timer left', async () => {
    const { host } = createHost();
    let stepped: SteppedActor | undefined;
    const trace: string[] = [];
    // GO reaches the holder, which stops it; the same transition then enters a state that schedules TICK.
    const logic = setup({
      actions: {
        reachHolder: () => stepped!.stop(),
        note: (_, params: { text: string }) => void trace.push(params.text),
        tickLater: raise({ type: 'TICK' }, { id: 'tick', delay: 15 }),
      },
    }).createMachine({
      initial: 'idle',
      states: {
        idle: { on: { GO: { target: 'waiting', actions: 'reachHolder' } } },
        waiting: {
          entry: ['tickLater', { type: 'note', params: { text: 'waiting' } }],
          on: { TICK: 'finished', NEXT: 'next' },
        },
        next: { entry: { type: 'note', params: { text: 'next' } } },
        finished: { type: 'final' },
      },
    });
    stepped = createSteppedActor(logic, host);
    stepped.start();
    stepped.send({ type: 'GO' });
    // As a real actor stopped from inside its own step: that step completes, then the stop wins.
    expect(trace).toEqual(['waiting']);
    expect(stepped.ref.getSnapshot().status).toBe('stopped');
    stepped.send({ type: 'NEXT' });
    // Its TICK was cancelled with it: nothing runs once the delay has passed.
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(trace).toEqual(['waiting']);
    expect(stepped.ref.getSnapshot().status).toBe('stopped');
  });

  it('inspection sees a delayed event once, as the scheduler reports it for an actor', async () => {
    const events: string[] = [];
    const { host } = createHost((event) => {
      if (event.type === '@xstate.event' && (event.actorRef as AnyActorRef).id === 'call-0')
        events.push(event.event.type);
    });
    started(createSteppedActor(createWorker([]), host)).send({ type: 'LATER' });
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(events).toEqual(['xstate.init', 'LATER', 'TICK']);
  });

  it('before start(), as a spawned child before its start: a stop makes start() run nothing, an event waits for it', () => {
    // The reference: a real child, stopped (or sent an event) in the same step that spawned it.
    const stoppedTrace: string[] = [];
    const stoppedHolder = setup({ actors: { worker: createWorker(stoppedTrace) } }).createMachine({
      entry: [spawnChild('worker', { id: 'call-0', input: { label: 'w' } }), stopChild('call-0')],
    });
    createActor(stoppedHolder).start();
    const sentTrace: string[] = [];
    const sentHolder = setup({ actors: { worker: createWorker(sentTrace) } }).createMachine({
      entry: [
        spawnChild('worker', { id: 'call-0', input: { label: 'w' } }),
        ({ self }) =>
          (self.getSnapshot().children['call-0'] as AnyActorRef | undefined)?.send({ type: 'GO' }),
      ],
    });
    createActor(sentHolder).start();
    expect(stoppedTrace).toEqual([]);
    expect(sentTrace).toEqual(['entry', 'sent FINISH', 'working', 'FINISH']);

    const stoppedSteps: string[] = [];
    const stopped = createSteppedActor(createWorker(stoppedSteps), createHost().host);
    stopped.stop();
    stopped.start();
    stopped.send({ type: 'GO' });
    expect(stoppedSteps).toEqual(stoppedTrace);
    expect(stopped.ref.getSnapshot()).toBeUndefined();
    const sentSteps: string[] = [];
    const sent = createSteppedActor(createWorker(sentSteps), createHost().host);
    sent.send({ type: 'GO' });
    expect(sentSteps).toEqual([]);
    sent.start();
    expect(sentSteps).toEqual(sentTrace);
  });
});
