import { describe, expect, it } from 'vitest';
import { createActor, enqueueActions } from 'xstate';
import type { ContinuationDecision } from '../../../kernel/index.js';
import { createAgentLogic } from '../../../machines/agent/logic.js';
import type { AgentMachineServices } from '../../../machines/agent/types.js';
import { createInboxItem } from '../../../machines/runtime/inbox.js';
import { fixedServices } from '../../../machines/runtime/systemServices.js';
import { createTurnActions } from '../../../machines/turn/actions.js';
import { createTurnLogic } from '../../../machines/turn/logic.js';
import type { ModelStep } from '../../../model/types.js';
import { createSeams } from '../../../seams/index.js';
import { checkInvariants, checkLedger, createSessionLog, formatViolation } from '../../../session/index.js';
import { recordNotifications } from '../../../testing/index.js';
import { createToolRegistryCore } from '../../../tools/index.js';
import { fakeAgent } from '../../paths/support/turnPaths.js';
import { deferred, reasons, sleep } from './helpers.js';

const text = (t: string) => [{ type: 'text' as const, text: t }];
const item = (id: string, content: string) => createInboxItem(id, content, undefined, 'steer', true);

describe('a turn actor that dies holding steering', () => {
  it('the agent discards exactly the steering the dead turn still held; what it drained stays dequeued', async () => {
    const log = createSessionLog();
    const seams = createSeams({ logger: { error: () => {} } });
    const notifications = recordNotifications(seams);
    // The continuation reason is decided only once the test has steered a second time.
    const decide = deferred<ContinuationDecision>();
    seams.on('agent/turn-continuation', () => decide.promise);
    const answers = [deferred<ModelStep>(), deferred<ModelStep>()];
    let requests = 0;
    const errors: unknown[] = [];
    const services: AgentMachineServices = {
      agentId: 'a1',
      tools: createToolRegistryCore(),
      cancelGraceMs: 5_000,
      log,
      seams,
      model: { request: () => answers[requests++]!.promise },
      agent: fakeAgent(log),
      maxParallelToolCalls: 10,
      maxRequestRetries: 1,
      sessionStartTimeoutMs: 1_000,
      reportError: (failure) => void errors.push(failure),
      logger: { error: () => {} },
    };
    // The turn dies when it is about to drain steering into step 2 (a throw while resolving its actions).
    const { recordSteering } = createTurnActions(fixedServices(services));
    const dyingTurn = createTurnLogic(services).provide({
      actions: {
        recordSteering: enqueueActions(({ context, enqueue }) => {
          if (context.step === 2) throw new Error('turn actor failed');
          enqueue(recordSteering as never);
        }),
      },
    });
    const logic = createAgentLogic(services).provide({ actors: { turn: dyingTurn } });
    const actor = createActor(logic, {
      input: { agentId: 'a1', source: 'startup', sessionStartPresent: false, resumed: [] },
    });
    actor.subscribe({ error: () => {} });
    actor.start();

    actor.send({ type: 'SEND', item: createInboxItem('m1', 'go', undefined, 'followup', true) });
    await sleep(0);
    actor.send({ type: 'STEER', item: item('s1', 'drained in step 1') });
    answers[0]!.resolve({ content: text('first'), finish: 'stop' });
    await sleep(0);
    // Step 1 drained s1 and is asking the continuation seam; s2 reaches the turn's steering FIFO.
    actor.send({ type: 'STEER', item: item('s2', 'never drained') });
    decide.resolve({
      action: 'continue',
      reason: { content: text('again'), source: { kind: 'plugin', plugin: 'p' } },
    });
    await sleep(0);

    expect(actor.getSnapshot().value).toBe('idle');
    expect(actor.getSnapshot().context.turnSteering).toEqual([]);
    expect(reasons(log.events)).toEqual([
      { kind: 'error', step: 1, message: 'turn actor failed', code: 'INTERNAL_ERROR' },
    ]);
    expect(errors).toHaveLength(1);
    const ledger = notifications.events.filter((event) => event.seam.startsWith('agent/inbox/'));
    expect(ledger.map((event) => [event.seam.slice('agent/inbox/'.length), event.payload])).toEqual([
      ['enqueue', expect.objectContaining({ id: 'm1', steering: false })],
      ['dequeue', expect.objectContaining({ id: 'm1', steering: false })],
      ['enqueue', expect.objectContaining({ id: 's1', steering: true })],
      ['dequeue', expect.objectContaining({ id: 's1', steering: true })],
      ['enqueue', expect.objectContaining({ id: 's2', steering: true })],
      ['enqueue', expect.objectContaining({ id: 'a1:t1:s1:continue', steering: true })],
      [
        'discard',
        expect.objectContaining({
          items: [
            { id: 's2', steering: true },
            { id: 'a1:t1:s1:continue', steering: true },
          ],
        }),
      ],
    ]);
    expect(checkLedger(notifications.events).map(formatViolation)).toEqual([]);
    expect(checkInvariants(log.events).map(formatViolation)).toEqual([]);
    actor.stop();
    notifications.dispose();
  });
});
