import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { LogEvent } from '../kernel/index.js';
import type { Agent } from '../machines/index.js';
import {
  type CheckInvariantsOptions,
  checkInvariants,
  createSessionLog,
  formatViolation,
  type SessionStore,
  SessionStoreError,
} from '../session/index.js';
import { defineTool } from '../tools/index.js';
import { createTestAgent } from './createTestAgent.js';

/** What a store under test offers the conformance suite; a missing capability needs a reason in `notApplicable`. */
export interface ConformanceStores {
  /** A new, empty session with this id. */
  create(sessionId: string): Promise<SessionStore>;
  /** Reopens a session, taking its lock or lease (loads, repairs). */
  open?(sessionId: string): Promise<SessionStore>;
  /** What the store holds for a session, read without taking it or repairing it (committed events only). */
  read?(sessionId: string): Promise<readonly LogEvent[]>;
  /**
   * The holder of an open session dies without closing: its store writes nothing more, and its lock or lease
   * becomes one a new opener takes over (a dead process's lock file, an expired lease).
   */
  abandon?(sessionId: string): Promise<void>;
  /** A new session whose store's writes start failing for real after `okWrites` events. */
  createFailing?(sessionId: string, okWrites: number): Promise<SessionStore>;
  /** Why each scenario the store cannot run does not apply to it (keyed by the scenario's id, e.g. `'D01'`). */
  readonly notApplicable?: Readonly<Record<string, string>>;
  /** Releases what the kit made (databases, folders). */
  dispose?(): Promise<void>;
}

/** The test functions of the runner (vitest, jest, mocha or `node:test`). */
export interface ConformanceRunner {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>, timeoutMs?: number): void;
}

type Capability = 'open' | 'read' | 'abandon' | 'createFailing';
type Kit = ConformanceStores;

interface Scenario {
  readonly id: string;
  readonly title: string;
  readonly needs: readonly Capability[];
  run(kit: Kit, sessionId: string): Promise<void>;
}

const userTurn = { turn: 1, trigger: { kind: 'message' as const, source: { kind: 'user' as const } } };
const text = (value: string) => [{ type: 'text' as const, text: value }];

function expectClean(events: readonly LogEvent[], options: CheckInvariantsOptions = {}): void {
  const violations = checkInvariants(events, options);
  assert.deepEqual(violations.map(formatViolation), []);
}

async function rejectionOf(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  assert.fail('expected the promise to reject');
}

async function until(what: string, predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A tool whose body starts, reports, and waits until the test lets it go (or its signal aborts). */
function gatedTool() {
  const started: string[] = [];
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tool = defineTool({
    name: 'work',
    description: 'waits for the test',
    parameters: z.object({ label: z.string() }),
    concurrency: 'parallel',
    execute: async ({ label }, context) => {
      started.push(label);
      await Promise.race([
        gate,
        new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true })),
      ]);
      return `done ${label}`;
    },
  });
  return { tool, started, release: () => release() };
}

async function dropAgent(agent: Agent): Promise<void> {
  // The holder is gone (abandoned): whatever its dispose tries to write is refused by the store.
  await agent.dispose().catch(() => undefined);
}

const scenarios: readonly Scenario[] = [
  {
    id: 'D01',
    title: 'a second writer is refused (SESSION_LOCKED) while the holder lives, and nothing is touched',
    needs: ['open', 'read'],
    async run(kit, id) {
      const store = await kit.create(id);
      const log = createSessionLog({ store });
      log.appendCore('turn/start', userTurn);
      log.appendCore('user/message', { content: text('hi'), source: { kind: 'user' } });
      await log.flush();
      const error = await rejectionOf(kit.open!(id));
      assert.equal(error.code, 'SESSION_LOCKED');
      assert.deepEqual(await kit.read!(id), log.events);
      // The holder goes on, and everything it wrote is stored.
      log.appendCore('turn/end', { turn: 1, reason: { kind: 'completed' } });
      await log.flush();
      await store.close();
      assert.deepEqual(await kit.read!(id), log.events);
      const again = await kit.open!(id);
      assert.deepEqual(again.repairs, []);
      assert.deepEqual(again.initialEvents, log.events);
      await again.close();
    },
  },
  {
    id: 'D01-takeover',
    title: 'a dead holder is taken over, the takeover listed in repairs, its open turn repaired',
    needs: ['open', 'abandon'],
    async run(kit, id) {
      const store = await kit.create(id);
      const log = createSessionLog({ store });
      log.appendCore('turn/start', userTurn);
      await log.flush();
      await kit.abandon!(id);
      const reopened = await kit.open!(id);
      try {
        assert.match(reopened.repairs[0] ?? '', /took over/);
        assert.deepEqual(
          reopened.initialEvents.map((event) => event.type),
          ['turn/start', 'turn/end'],
        );
        assert.deepEqual(reopened.initialEvents[1]?.data, { turn: 1, reason: { kind: 'interrupted' } });
        expectClean(reopened.initialEvents);
      } finally {
        await reopened.close();
        await store.close().catch(() => undefined);
      }
    },
  },
  {
    id: 'D03',
    title: 'a failed append latches: the agent goes failed, deliveries throw, the store holds a valid prefix',
    needs: ['createFailing', 'read'],
    async run(kit, id) {
      // A text turn is 7 events; the second turn's third event is the first write that fails.
      const store = await kit.createFailing!(id, 9);
      const { agent } = createTestAgent({ script: [{ text: 'one' }, { text: 'two' }], options: { store } });
      agent.followup('first');
      await agent.whenIdle();
      assert.equal(agent.status, 'idle');
      try {
        agent.followup('second');
      } catch (error) {
        // A store that writes synchronously refuses the delivery itself.
        assert.ok(error instanceof SessionStoreError);
      }
      await until('the agent failed', () => agent.status === 'failed');
      assert.throws(() => agent.followup('again'), SessionStoreError);
      await agent.whenIdle();
      await agent.dispose();
      const stored = await kit.read!(id);
      assert.ok(stored.length >= 7, `expected the first turn stored, found ${stored.length} events`);
      assert.ok(
        stored.length <= 9,
        `expected nothing stored past the failure, found ${stored.length} events`,
      );
      assert.deepEqual(stored, agent.log.events.slice(0, stored.length));
      assert.ok(stored.filter((event) => event.type === 'turn/start').length <= 2);
      expectClean(stored, { open: true });
    },
  },
  {
    id: 'D03-repair',
    title:
      'a crash mid-call is repaired on open: the running call TOOL_OUTCOME_UNKNOWN, the turn interrupted',
    needs: ['open', 'abandon'],
    async run(kit, id) {
      const store = await kit.create(id);
      const gated = gatedTool();
      const { agent } = createTestAgent({
        script: [{ toolCalls: [{ id: 'c1', name: 'work', arguments: { label: 'a' } }] }],
        tools: [gated.tool],
        options: { store },
      });
      agent.followup('go');
      await until('the body started', () => gated.started.length === 1);
      await kit.abandon!(id);
      const reopened = await kit.open!(id);
      try {
        const events = reopened.initialEvents;
        const result = events.find((event) => event.type === 'tool/result');
        const error = (result?.data as { error?: { code: string } } | undefined)?.error;
        assert.equal(error?.code, 'TOOL_OUTCOME_UNKNOWN');
        assert.ok(
          events.findIndex((event) => event.type === 'tool/call') <
            events.findIndex((event) => event.type === 'tool/result'),
        );
        assert.deepEqual(events.at(-1)?.data, { turn: 1, reason: { kind: 'interrupted' } });
        expectClean(events, { atRest: true });
      } finally {
        gated.release();
        await dropAgent(agent);
        await reopened.close();
      }
    },
  },
  {
    id: 'D06',
    title: 'acknowledged messages survive a crash: re-queued on open, run first, each exactly once',
    needs: ['open', 'abandon'],
    async run(kit, id) {
      const store = await kit.create(id);
      const gated = gatedTool();
      const first = createTestAgent({
        script: [{ toolCalls: [{ id: 'c1', name: 'work', arguments: { label: 'a' } }] }],
        tools: [gated.tool],
        options: { store },
      });
      first.agent.followup('one');
      await until('the body started', () => gated.started.length === 1);
      const two = first.agent.followup('two');
      const three = first.agent.followup('three', { id: 'caller:3' });
      await first.agent.log.barrier?.();
      await kit.abandon!(id);
      const reopened = await kit.open!(id);
      gated.release();
      await dropAgent(first.agent);
      assert.ok(reopened.repairs.some((line) => line.includes(`${two} is re-queued`)));
      assert.ok(reopened.repairs.some((line) => line.includes('caller:3 is re-queued')));
      const second = createTestAgent({
        script: [{ text: 'two done' }, { text: 'three done' }],
        options: { store: reopened, resumePending: 'run' },
      });
      await until('both ran', () => second.eventData('turn/start').length === 3);
      await second.agent.whenIdle();
      // The caller's id was accepted once: sending it again is a no-op returning it.
      assert.equal(second.agent.followup('three again', { id: 'caller:3' }), three);
      await second.agent.dispose();
      const claimed = second
        .eventData<{ trigger: { itemId?: string } }>('turn/start')
        .map((data) => data.trigger.itemId);
      assert.deepEqual(claimed.slice(1), [two, three]);
      expectClean(second.agent.log.events, { atRest: true });
    },
  },
  {
    id: 'D05',
    title: 'a large session (20,000 events) is stored and loads whole',
    needs: ['open'],
    async run(kit, id) {
      const store = await kit.create(id);
      const log = createSessionLog({ store });
      for (let turn = 1; log.events.length < 20_000; turn++) {
        log.appendCore('turn/start', { ...userTurn, turn });
        log.appendCore('user/message', { content: text(`message ${turn}`), source: { kind: 'user' } });
        log.appendCore('step/start', { turn, step: 1 });
        log.appendCore('assistant/message', {
          turn,
          step: 1,
          content: text(`answer ${turn}`),
          finish: 'stop',
        });
        log.appendCore('step/end', { turn, step: 1 });
        log.appendCore('turn/end', { turn, reason: { kind: 'completed' } });
      }
      await log.flush();
      await store.close();
      const reopened = await kit.open!(id);
      try {
        assert.equal(reopened.initialEvents.length, log.events.length);
        assert.deepEqual(reopened.initialEvents.at(-1), log.events.at(-1));
        assert.deepEqual(reopened.repairs, []);
      } finally {
        await reopened.close();
      }
    },
  },
  {
    id: 'write-ahead',
    title:
      'the write-ahead barrier: a model request and a tool body start only after what precedes them is stored',
    needs: ['read'],
    async run(kit, id) {
      const store = await kit.create(id);
      const seenAtBody: string[][] = [];
      const probe = defineTool({
        name: 'probe',
        description: 'reads the store at its start',
        parameters: z.object({}),
        execute: async () => {
          seenAtBody.push((await kit.read!(id)).map((event) => event.type));
          return 'ok';
        },
      });
      const { agent } = createTestAgent({
        script: [{ toolCalls: [{ id: 'p1', name: 'probe', arguments: {} }] }, { text: 'done' }],
        tools: [probe],
        options: { store },
      });
      agent.followup('go');
      await agent.whenIdle();
      await agent.dispose();
      assert.equal(seenAtBody.length, 1);
      assert.equal(seenAtBody[0]?.at(-1), 'tool/call');
      assert.deepEqual(await kit.read!(id), agent.log.events);
      expectClean(agent.log.events, { atRest: true });
    },
  },
];

/**
 * Registers the storage conformance scenarios (`storage.md`'s D group and the write-ahead barrier) for a store:
 * one writer, takeover of a dead holder, a failed append that latches, crash repair, the durable inbox, large
 * sessions and the barrier. A scenario needing a capability the kit lacks checks that the kit says why.
 * @param name the store's name, in the test titles
 * @param makeStore makes a fresh kit for each scenario
 * @param runner the runner's `describe` and `it` (the globals when absent)
 * @example
 * import { describe, it } from 'vitest';
 * storeConformance('my store', () => myKit(), { describe, it });
 */
export function storeConformance(
  name: string,
  makeStore: () => ConformanceStores | Promise<ConformanceStores>,
  runner: ConformanceRunner = globalRunner(),
): void {
  runner.describe(`storeConformance: ${name}`, () => {
    for (const scenario of scenarios) {
      runner.it(
        `${scenario.id} ${scenario.title}`,
        async () => {
          const kit = await makeStore();
          try {
            const missing = scenario.needs.filter((capability) => typeof kit[capability] !== 'function');
            if (missing.length > 0) {
              const why = kit.notApplicable?.[scenario.id];
              assert.ok(
                typeof why === 'string' && why.length > 0,
                `${name} lacks ${missing.join(', ')} for ${scenario.id}: implement it, or say why it does not apply in notApplicable`,
              );
              return;
            }
            await scenario.run(kit, `conformance-${scenario.id}-${randomUUID()}`);
          } finally {
            await kit.dispose?.();
          }
        },
        60_000,
      );
    }
  });
}

function globalRunner(): ConformanceRunner {
  const scope = globalThis as { describe?: ConformanceRunner['describe']; it?: ConformanceRunner['it'] };
  if (typeof scope.describe !== 'function' || typeof scope.it !== 'function') {
    throw new TypeError(
      'storeConformance(): pass your runner’s { describe, it } as the third argument (no global describe/it found)',
    );
  }
  return { describe: scope.describe, it: scope.it };
}
