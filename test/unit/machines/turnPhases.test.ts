import { describe, expect, it } from 'vitest';
import { createAgent } from '../../../machines/agent/createAgent.js';
import { createToolRegistry } from '../../../machines/index.js';
import { waitForAbort } from '../../../model/abort.js';
import type { ModelAdapter, ModelRequest } from '../../../model/index.js';
import { createSeams } from '../../../seams/index.js';
import { checkInvariants, memoryStore, SessionStoreError } from '../../../session/index.js';
import type { SessionStore } from '../../../session/types.js';
import { runTurn } from '../agent/turnHarness.js';

const answer = { content: [{ type: 'text' as const, text: 'late' }], finish: 'stop' as const };

/** A model whose requests wait until the test answers them; it keeps each request it was asked. */
function heldModel() {
  const requests: ModelRequest[] = [];
  const answers: Array<(step: typeof answer) => void> = [];
  const model: ModelAdapter = {
    request: (request) => {
      requests.push(request);
      return new Promise((resolve) => answers.push(resolve));
    },
  };
  return { model, requests, answers };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the turn’s model request and log flush are its own phases (no actor each)', () => {
  it('a cancel stops the running request with its cause, and the answer that comes after is dropped', async () => {
    const held = heldModel();
    const run = runTurn({ seams: createSeams(), model: held.model, text: 'go' });
    await tick();
    expect(held.requests).toHaveLength(1);
    const [request] = held.requests;
    expect(request!.signal.aborted).toBe(false);
    run.actor.send({ type: 'CANCEL', cause: { kind: 'disposed' }, keepInbox: false });
    // The request's own signal, aborted with the same reason as the turn signal a seam listener holds.
    expect(request!.signal.aborted).toBe(true);
    expect(request!.signal.reason).toEqual({ kind: 'disposed' });
    held.answers[0]!(answer);
    const output = await run.done;
    await tick();
    expect(output).toMatchObject({ reason: { kind: 'disposed' } });
    expect(run.types()).toEqual(['turn/start', 'user/message', 'step/start', 'step/end', 'turn/end']);
    expect(run.errors).toEqual([]);
    expect(checkInvariants(run.events)).toEqual([]);
  });

  it('a refused step/start asks the model nothing: the turn closes with the failure', async () => {
    const held = heldModel();
    const store = {
      ...memoryStore(),
      write(event: { type: string }) {
        if (event.type === 'step/start') throw new Error('disk full');
      },
    };
    const run = runTurn({ seams: createSeams(), model: held.model, text: 'go', store });
    const output = await run.done;
    expect(held.requests).toEqual([]);
    expect(output).toMatchObject({ reason: { kind: 'error', step: 1, code: 'INTERNAL_ERROR' } });
    expect(run.types()).toEqual(['turn/start', 'user/message', 'turn/end']);
    expect(checkInvariants(run.events)).toEqual([]);
  });

  it('each request of a turn has its own signal: a failed request retried is asked again, fresh', async () => {
    const seams = createSeams();
    seams.on('agent/request-error', () => ({ action: 'retry' }));
    const requests: ModelRequest[] = [];
    const model: ModelAdapter = {
      request: async (request) => {
        requests.push(request);
        if (requests.length === 1) throw new Error('overloaded');
        return { content: [{ type: 'text', text: 'ok' }], finish: 'stop' };
      },
    };
    const run = runTurn({ seams, model, text: 'go' });
    const output = await run.done;
    expect(output).toMatchObject({ reason: { kind: 'completed' } });
    expect(requests).toHaveLength(2);
    expect(requests[0]!.signal).not.toBe(requests[1]!.signal);
    // A request that settled is not aborted afterwards (leaving `requesting` stops only a running one).
    expect(requests.map((request) => request.signal.aborted)).toEqual([false, false]);
    expect(checkInvariants(run.events)).toEqual([]);
  });

  for (const batch of ['real', 'stub'] as const) {
    it(`a turn stopped from outside aborts its running request (the logic ${batch === 'real' ? 'as createTurnLogic returns it' : 're-provided'})`, async () => {
      const requests: ModelRequest[] = [];
      const model: ModelAdapter = {
        request: (request) => {
          requests.push(request);
          return waitForAbort(request.signal);
        },
      };
      // The stub batch is bound with `createTurnLogic(services).provide(…)`, as a user re-providing the turn does.
      const run = runTurn({
        seams: createSeams(),
        model,
        text: 'go',
        ...(batch === 'real' ? { batch } : {}),
      });
      await tick();
      expect(requests).toHaveLength(1);
      run.actor.stop();
      expect(requests[0]!.signal.aborted).toBe(true);
      await tick();
      expect(run.errors).toEqual([]);
    });
  }

  it('an agent that fails on a store write mid-request aborts the request, and its late deltas reach nobody', async () => {
    const requests: ModelRequest[] = [];
    const model: ModelAdapter = {
      request: (request) => {
        requests.push(request);
        return waitForAbort(request.signal);
      },
    };
    const base = memoryStore();
    let accepted = 0;
    // The second message's `inbox/accepted` write fails for real: the agent goes `failed` with the turn in flight.
    const store: SessionStore = {
      ...base,
      write(event, line) {
        if (event.type === 'inbox/accepted' && ++accepted === 2)
          throw new SessionStoreError('WRITE_FAILED', 'memory', 'disk full');
        base.write(event, line);
      },
    };
    const seams = createSeams();
    const deltas: unknown[] = [];
    seams.on('model/delta', (notice) => void deltas.push(notice.delta));
    const agent = createAgent({ seams, tools: createToolRegistry(), model, store });
    agent.followup('go');
    await tick();
    expect(requests).toHaveLength(1);
    expect(() => agent.followup('more')).toThrow();
    await tick();
    expect(agent.status).toBe('failed');
    expect(requests[0]!.signal.aborted).toBe(true);
    requests[0]!.onDelta?.({ kind: 'text', text: 'after failed' });
    await tick();
    expect(deltas).toEqual([]);
    // A failed session: its turn stays open on the log (resume repairs it to `interrupted`).
    expect(checkInvariants(agent.log.events, { open: true })).toEqual([]);
    await agent.dispose();
  });

  it('a failed flush is reported as session/flush, and the turn is still done', async () => {
    const store = {
      ...memoryStore(),
      flush: () => Promise.reject(new Error('fsync failed')),
    };
    const run = runTurn({
      seams: createSeams(),
      model: { request: async () => answer } as ModelAdapter,
      text: 'go',
      store,
    });
    const output = await run.done;
    expect(output).toMatchObject({ reason: { kind: 'completed' } });
    expect(run.errors).toEqual([
      expect.objectContaining({
        origin: 'session/flush',
        error: expect.objectContaining({ message: 'fsync failed' }),
      }),
    ]);
    expect(checkInvariants(run.events)).toEqual([]);
  });
});
