import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../../model/index.js';
import { createSeams } from '../../../seams/index.js';
import { checkInvariants, memoryStore } from '../../../session/index.js';
import { runTurn } from '../agent/turnHarness.js';

describe('turn machine', () => {
  it('records turn/start, user/message, one step and turn/end{completed} when every seam is empty', async () => {
    const run = runTurn({ seams: createSeams(), model: scriptedModel([{ text: 'hi' }]), text: 'hello' });
    const output = await run.done;
    expect(run.types()).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ]);
    expect(output).toMatchObject({
      reason: { kind: 'completed' },
      leftoverSteering: [],
      terminalStopped: false,
    });
    expect(checkInvariants(run.events)).toEqual([]);
  });

  it('runs the batch for an answer with tool calls, then continues to a second step by default', async () => {
    const model = scriptedModel([
      { toolCalls: [{ id: 'c1', name: 'echo', arguments: { a: 1 } }] },
      { text: 'done' },
    ]);
    const run = runTurn({ seams: createSeams(), model, text: 'go' });
    await run.done;
    expect(run.types()).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'tool/call',
      'tool/result',
      'step/end',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ]);
    expect(checkInvariants(run.events)).toEqual([]);
  });

  it('closes the step and the turn aborted when cancelled while the model request hangs', async () => {
    const run = runTurn({ seams: createSeams(), model: scriptedModel([{ hang: true }]), text: 'go' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    run.actor.send({
      type: 'INJECT',
      injection: { content: [{ type: 'text', text: 'ctx' }], source: { kind: 'user' } },
    });
    run.actor.send({ type: 'CANCEL', cause: { kind: 'user' }, keepInbox: false });
    const output = await run.done;
    expect(run.types()).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'context/message',
      'step/end',
      'turn/end',
    ]);
    expect(output).toMatchObject({ reason: { kind: 'aborted' } });
    expect(run.errors).toEqual([]);
    expect(checkInvariants(run.events)).toEqual([]);
  });
});

describe('turn machine edges', () => {
  const text = (t: string) => [{ type: 'text' as const, text: t }];

  it('pending steering overrides a continuation stop: the next step starts with the steering/message', async () => {
    const seams = createSeams();
    const holder: { run?: ReturnType<typeof runTurn> } = {};
    seams.on('agent/turn-continuation', (_c, next) => {
      if (holder.run?.events.some((e) => e.type === 'steering/message') === false) {
        holder.run.actor.send({
          type: 'STEER',
          item: { id: 's1', content: text('more'), source: { kind: 'user' }, contexts: [], wakeup: true },
        });
      }
      return next();
    });
    holder.run = runTurn({ seams, model: scriptedModel([{ text: 'a' }, { text: 'b' }]), text: 'go' });
    await holder.run.done;
    expect(holder.run.types()).toEqual([
      'turn/start',
      'user/message',
      'step/start',
      'assistant/message',
      'step/end',
      'steering/message',
      'step/start',
      'assistant/message',
      'step/end',
      'turn/end',
    ]);
    expect(checkInvariants(holder.run.events)).toEqual([]);
  });

  it('a refused append becomes INTERNAL_ERROR: the step and the turn still close, with error', async () => {
    const store = {
      ...memoryStore(),
      write(event: { type: string }) {
        if (event.type === 'assistant/message') throw new Error('disk full');
      },
    };
    const run = runTurn({ seams: createSeams(), model: scriptedModel([{ text: 'a' }]), text: 'go', store });
    const output = (await run.done) as { reason: unknown };
    expect(run.types()).toEqual(['turn/start', 'user/message', 'step/start', 'step/end', 'turn/end']);
    expect(output.reason).toMatchObject({ kind: 'error', step: 1, code: 'INTERNAL_ERROR' });
    expect(run.errors).toHaveLength(1);
    expect(checkInvariants(run.events)).toEqual([]);
  });

  it('after turn/end, injections are held and steering is left over (or dropped by a cancel) for the agent', async () => {
    let releaseFlush = (): void => {};
    const store = {
      ...memoryStore(),
      flush: () =>
        new Promise<void>((resolve) => {
          releaseFlush = resolve;
        }),
    };
    const run = runTurn({ seams: createSeams(), model: scriptedModel([{ text: 'a' }]), text: 'go', store });
    while (!run.types().includes('turn/end')) await new Promise((resolve) => setTimeout(resolve, 1));
    const injection = { content: text('late'), source: { kind: 'user' as const } };
    const steer = (id: string) => ({
      id,
      content: text(id),
      source: { kind: 'user' as const },
      contexts: [],
      wakeup: true,
    });
    run.actor.send({ type: 'INJECT', injection });
    run.actor.send({ type: 'STEER', item: steer('dropped') });
    run.actor.send({ type: 'CANCEL', cause: { kind: 'user' }, keepInbox: false });
    run.actor.send({ type: 'STEER', item: steer('kept') });
    releaseFlush();
    const output = await run.done;
    expect(output).toMatchObject({
      reason: { kind: 'completed' },
      heldInjections: [injection],
      droppedSteering: [{ id: 'dropped' }],
      leftoverSteering: [{ id: 'kept' }],
    });
    expect(run.types().at(-1)).toBe('turn/end');
    expect(checkInvariants(run.events)).toEqual([]);
  });
});
