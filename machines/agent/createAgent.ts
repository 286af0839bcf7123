import { randomUUID } from 'node:crypto';
import { type Actor, toPromise } from 'xstate';
import type {
  AgentLogView,
  ContentBlock,
  CoreEventData,
  JsonValue,
  LogEvent,
  MessageSource,
  UsageTotal,
} from '../../kernel/index.js';
import { describeThrown, toFailure } from '../../kernel/index.js';
import type { AgentEnvironment, AgentHandle, CancelCause, DeliveryOptions } from '../../seams/index.js';
import { createAgentEnvironment, Seam } from '../../seams/index.js';
import type { SessionStore } from '../../session/index.js';
import {
  createSessionLog,
  createUsageCounter,
  eventLineBytes,
  expiredApprovals,
  findSuspension,
  lastMessageNumber,
  memoryStore,
  pendingInboxItems,
  SessionLogError,
} from '../../session/index.js';
import type { TurnMachineServices } from '../runtime/index.js';
import {
  createActorWithServices,
  createInboxItem,
  createInjection,
  createReportingScope,
  freezeJson,
  type InboxItem,
  type Injection,
} from '../runtime/index.js';
import {
  type ApprovalDesk,
  createApprovalDesk,
  type PendingApproval,
  type ResolveApprovalOptions,
} from './approvalDesk.js';
import { createBudgetedReporter } from './errorBudget.js';
import { AgentLog, LiveAgent } from './handle.js';
import type { createAgentLogic } from './logic.js';
import { sharedAgentLogic } from './logic.js';
import { type AgentOptions, type ResolvedAgentOptions, resolveAgentOptions } from './options.js';
import { suspendedSteering } from './resume.js';
import { type AgentStreamItem, type AgentStreamOptions, createAgentStream } from './stream.js';
import type { AgentEvent, AgentMachineServices } from './types.js';

export type { PendingApproval, ResolveApprovalOptions } from './approvalDesk.js';
export type { AgentOptions } from './options.js';
export type { AgentStreamItem, AgentStreamOptions } from './stream.js';

/** What `resolveApproval` recorded (`approval/resolved`). */
export type ApprovalResolution = CoreEventData<'approval/resolved'>;

/** The handle `createAgent` returns: the seam-facing `AgentHandle` plus lifecycle and inspection. */
export interface Agent extends AgentHandle {
  /** The XState actor (for inspection; drive the agent through the methods). */
  readonly actor: Actor<ReturnType<typeof createAgentLogic>>;
  readonly cwd: string;
  readonly env: AgentEnvironment;
  /** Resolves when the agent is not running and no waking item is queued (or it is disposed). */
  whenIdle(): Promise<void>;
  /**
   * The agent's notifications (deltas, log events, status) as an async iterable that ends when the
   * agent, once seen running, is idle, failed or disposed — or when the consumer breaks.
   */
  stream(options?: AgentStreamOptions): AsyncIterableIterator<AgentStreamItem>;
  /** Token usage of the whole session, summed from `assistant/message.usage` (resumed turns too). */
  readonly usage: UsageTotal;
  /** The pending deferred approvals of the suspended turn, from the log (expired ones are answered `expired` first). */
  approvals(): PendingApproval[];
  /**
   * Answers a pending deferred approval: appends `approval/resolved` and resolves once it is durable; when none is
   * pending any more the turn resumes. A refused answer rejects with an `ApprovalError` and writes nothing.
   */
  resolveApproval(requestId: string, answer: ResolveApprovalOptions): Promise<ApprovalResolution>;
  /**
   * Idempotent: cancels an open turn, resolves after the last flush and closes the store (releasing its lock).
   * Pending items are kept in the log for a resume (`keepInbox`, the default with a file store) or discarded
   * (the default with `memoryStore`).
   */
  dispose(options?: { keepInbox?: boolean }): Promise<void>;
}

/**
 * How many deliveries (`followup`, `queue`, `steer`, `inject`) the notifications of one delivery may make
 * before the next is refused with a `TypeError`: a listener that delivers on every delivery would never end.
 */
export const MAX_NESTED_DELIVERIES = 100;

const CAUSES: readonly CancelCause['kind'][] = ['user', 'parent', 'disposed'];

/** The agent id: the store's session id wins; a different explicit `id` is a mistake. */
function resolveAgentId(options: ResolvedAgentOptions, store: SessionStore): string {
  const { sessionId } = store;
  if (sessionId !== undefined && options.id !== undefined && sessionId !== options.id) {
    throw new TypeError(
      `Expected the \`id\` option of createAgent() to match the store's session id "${sessionId}", got "${options.id}"; ` +
        'omit `id` when resuming a stored session',
    );
  }
  return sessionId ?? options.id ?? flatCopy(randomUUID());
}

// `randomUUID()` returns a rope of 14 concatenated pieces (~490 B on the heap); an agent keeps its id
// for its whole life, so it keeps a flat copy (~60 B).
const flatCopy = (text: string): string => JSON.parse(JSON.stringify(text)) as string;

/**
 * Creates an agent: one root actor per session that runs one turn per claimed message.
 * @param rawOptions seams, tools, model and the optional settings of `AgentOptions`
 * @example
 * const agent = createAgent({ seams: createSeams(), tools: createToolRegistry(), model: scriptedModel([{ text: 'hi' }]) });
 * agent.followup('hello');
 * await agent.whenIdle();
 * await agent.dispose();
 */
export function createAgent(rawOptions: AgentOptions): Agent {
  const options = resolveAgentOptions(rawOptions);
  const { seams } = options;
  const store = options.store ?? memoryStore();
  const agentId = resolveAgentId(options, store);

  // agent/error's own listener failures go only to the registry's logger (no onContainedError here).
  const reportError: TurnMachineServices['reportError'] = createBudgetedReporter(
    (failure) => seams.notify(Seam.error, { agentId, ...failure }, { agentId }),
    options.logger,
    agentId,
  );
  const containedScope = createReportingScope({ reportError }, agentId);
  const log = createSessionLog({
    store,
    onEvent: (event) => seams.notify(Seam.sessionEvent, { agentId, event }, containedScope),
    onListenerError: (error, event) =>
      reportError({
        error: { message: `A log subscriber of ${event.type} failed: ${describeThrown(error)}` },
        origin: 'log',
      }),
  });
  const logView: AgentLogView = new AgentLog(
    () => log.events,
    (listener) => log.subscribe(listener),
    (type, data) => log.append(type, data),
    // Only a store that commits asynchronously has a barrier worth waiting for (tools and hooks skip it otherwise).
    log.writesAsync ? () => log.barrier() : undefined,
  );

  let actor: Agent['actor'] | undefined;
  let disposal: Promise<void> | undefined;
  // Ids are unique across the session's life: a resume continues after the log's highest.
  let nextMessage = lastMessageNumber(store.initialEvents);
  // A suspended session: requests that expired while no agent ran are answered now (approvals.md).
  for (const data of expiredApprovals(log.events, new Date())) log.appendCore('approval/resolved', data);
  const suspension = findSuspension(log.events);
  const resumed = resumedItems(log.events, options.resumePending);
  // Tell a person (a server's listener) about requests and answers as they are recorded.
  log.subscribe((event) => notifyApproval(event));
  const notifyApproval = (event: LogEvent): void => {
    if (event.type === 'approval/requested')
      seams.notify(
        Seam.approvalRequested,
        { agentId, request: event.data as CoreEventData<'approval/requested'> },
        containedScope,
      );
    else if (event.type === 'approval/resolved')
      seams.notify(
        Seam.approvalResolved,
        { agentId, resolution: event.data as CoreEventData<'approval/resolved'> },
        containedScope,
      );
  };
  const callerIds = acceptedCallerIds(store.initialEvents);
  // Wakes an agent that sits still (idle, or waiting on a tool body); a moving one sees the latch in its guard.
  log.onStoreFailure((error) =>
    send({ type: 'STORE_FAILED', failure: { code: error.code, message: error.message } }),
  );
  const usage = createUsageCounter();
  const desk: ApprovalDesk = createApprovalDesk({
    agentId,
    log,
    status: () => agent.status,
    resume: () => send({ type: 'RESUME' }),
  });
  // A dead actor (error or stopped) takes no events: sending would only warn and drop them.
  const isLive = (): boolean => actor?.getSnapshot().status === 'active';
  const send = (event: AgentEvent): void => {
    if (isLive()) actor?.send(event);
  };
  const ensureLive = (method: string): void => {
    // After a store failure nothing can be acknowledged: every delivery gets the store's error.
    if (log.storeFailure !== undefined) throw log.storeFailure;
    if (disposal) {
      throw new Error(
        `agent "${agentId}" is disposed: ${method}() cannot deliver anything anymore; create a new agent (or reopen its store)`,
      );
    }
    if (actor && !isLive()) {
      const how = actor.getSnapshot().status === 'error' ? 'stopped on an error' : 'was stopped';
      throw new Error(
        `agent "${agentId}" ${how}: ${method}() cannot deliver anything anymore; create a new agent (or reopen its store)`,
      );
    }
  };
  // The durable inbox: the item is on the log before its id is returned (storage.md).
  const acceptItem = (item: InboxItem, steering: boolean): void => {
    const { id, content, source, meta, contexts, wakeup } = item;
    try {
      log.appendCore('inbox/accepted', {
        id,
        content: [...content],
        source,
        ...(meta === undefined ? {} : { meta }),
        ...(contexts.length === 0 ? {} : { contexts: [...contexts] }),
        steering,
        wakeup,
      });
    } catch (error) {
      if (error instanceof SessionLogError && error.code === 'LINE_TOO_LONG')
        throw new TypeError(
          `agent.${steering ? 'steer' : 'followup'}(): ${error.message}; send less content`,
        );
      if (log.storeFailure !== undefined) throw log.storeFailure;
      throw error;
    }
  };
  // Deliveries made from inside the notifications of an outer delivery (its session/event, agent/inbox/enqueue…).
  const nested = { active: false, count: 0 };
  const withinDeliveryBound = <TResult>(method: string, delivery: () => TResult): TResult => {
    if (nested.active && ++nested.count > MAX_NESTED_DELIVERIES) {
      throw new TypeError(
        `agent.${method}(): ${MAX_NESTED_DELIVERIES} deliveries were made from inside the notifications of one delivery ` +
          '(a session/event or agent/inbox/enqueue listener that delivers on every delivery loops without end); ' +
          'deliver at most a bounded number of times from a notification',
      );
    }
    if (nested.active) return delivery();
    nested.active = true;
    nested.count = 0;
    try {
      return delivery();
    } finally {
      nested.active = false;
    }
  };
  const deliver = (
    method: 'followup' | 'queue' | 'steer',
    content: unknown,
    deliveryOptions: unknown,
  ): string => withinDeliveryBound(method, () => deliverOnce(method, content, deliveryOptions));
  const deliverOnce = (
    method: 'followup' | 'queue' | 'steer',
    content: unknown,
    deliveryOptions: unknown,
  ): string => {
    ensureLive(method);
    const { callerId, rest } = takeCallerId(method, deliveryOptions);
    // A re-delivered message (a re-run workflow) is accepted once: the second followup returns its id.
    if (callerId !== undefined && callerIds.has(callerId)) return callerId;
    const item = createInboxItem(callerId ?? `m${++nextMessage}`, content, rest, method, method !== 'queue');
    acceptItem(item, method === 'steer');
    if (callerId !== undefined) callerIds.add(callerId);
    send({ type: method === 'followup' ? 'SEND' : method === 'queue' ? 'QUEUE' : 'STEER', item });
    return item.id;
  };

  const agent: Agent = new LiveAgent(
    {
      id: agentId,
      cwd: options.cwd,
      log: logView,
      env: createAgentEnvironment(),
      followup: (content: string | ContentBlock[], opts?: DeliveryOptions) =>
        deliver('followup', content, opts),
      queue: (content: string | ContentBlock[], opts?: DeliveryOptions) => deliver('queue', content, opts),
      steer: (content: string | ContentBlock[], opts?: DeliveryOptions) => deliver('steer', content, opts),
      inject(content: string | ContentBlock[], opts?: { source?: MessageSource; meta?: JsonValue }) {
        withinDeliveryBound('inject', () => {
          ensureLive('inject');
          const injection = createInjection(content, opts);
          refuseOversizedInjection(injection, log.maxLineBytes);
          send({ type: 'INJECT', injection });
        });
      },
      cancel(cause: CancelCause = { kind: 'user' }, opts: { keepInbox?: boolean } = {}) {
        if (cause === null || typeof cause !== 'object' || !CAUSES.includes(cause.kind)) {
          throw new TypeError(
            `agent.cancel(): expected cause to be { kind: 'user' | 'parent' | 'disposed' }, got ${JSON.stringify(cause)}`,
          );
        }
        // After dispose() a cancel cannot change anything.
        if (disposal) return;
        send({ type: 'CANCEL', cause: { kind: cause.kind }, keepInbox: opts.keepInbox === true });
      },
      whenIdle: () => (actor ? waitUntilIdle(actor) : Promise.resolve()),
      approvals: () => desk.approvals(),
      resolveApproval: (requestId, answer) => desk.resolveApproval(requestId, answer),
      stream: (streamOptions) =>
        createAgentStream({ agentId, seams, log: logView, status: () => agent.status }, streamOptions),
      dispose(disposeOptions: { keepInbox?: boolean } = {}) {
        // A graceful shutdown of a file-backed agent must not lose what a crash would keep.
        const keepInbox = disposeOptions.keepInbox ?? store.durable === true;
        disposal ??= (async () => {
          const running = actor;
          if (!running) return;
          // The machine ends in `disposed` after its last flush; an actor that died or was stopped has
          // nothing left to wait for (and toPromise would never settle for a stopped one).
          if (isLive()) {
            running.send({ type: 'DISPOSE', keepInbox });
            await toPromise(running).catch(() => {});
          }
          await store
            .close()
            .catch((error: unknown) =>
              options.logger.error(`agent "${agentId}": closing the store failed`, { error }),
            );
        })();
        return disposal;
      },
    },
    {
      status: () => actor?.getSnapshot().context.status ?? 'idle',
      actor: () => {
        if (!actor)
          throw new Error(
            `agent "${agentId}" is still being created; read agent.actor after createAgent() returned`,
          );
        return actor;
      },
      usage: () => usage.read(log.events),
    },
  );

  const services: AgentMachineServices = {
    agentId,
    tools: options.tools,
    cancelGraceMs: options.cancelGraceMs,
    log,
    seams,
    model: options.model,
    agent,
    maxParallelToolCalls: options.maxParallelToolCalls,
    maxRequestRetries: options.maxRequestRetries,
    sessionStartTimeoutMs: options.sessionStartTimeoutMs,
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    modelSettings: options.modelSettings,
    maxStepsPerTurn: options.maxStepsPerTurn,
    reportError,
    logger: options.logger,
    ...(options.approval === undefined ? {} : { approval: options.approval }),
  };
  // The agent's machines are provided once per process; this agent's services are registered for its
  // actor system, which its turns, batches and calls share.
  actor = createActorWithServices(sharedAgentLogic(), services, {
    input: {
      agentId,
      source: store.initialEvents.length > 0 ? 'resume' : 'startup',
      sessionStartPresent: seams.snapshot(agentId).has(Seam.sessionStart),
      resumed,
      suspension:
        suspension === undefined ? 'none' : suspension.pending.length === 0 ? 'answered' : 'waiting',
    },
    ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
  });
  // The root actor always has an error subscriber: no unhandled rejection, ever. Subscribed before
  // start(), so an error thrown while starting is caught too; it never throws itself.
  actor.subscribe({
    error: (error) => {
      try {
        options.logger.error(`agent "${agentId}" stopped on an error`, { error });
        reportError({ error: toFailure(error), origin: 'agent' });
      } catch {
        // Reporting is best effort: the logger and agent/error listeners already contain their failures.
      }
    },
  });
  // Re-queued items are announced before session start, so before the actor starts: XState starts an initial
  // state's children (the session-start listeners) before it runs its entry actions.
  for (const { id, content, source, wakeup } of resumed)
    seams.notify(
      Seam.inboxEnqueue,
      { agentId, id, content, source, steering: false, wakeup },
      containedScope,
    );
  actor.start();
  return agent;
}

/**
 * An injection is written later (as an injection turn, or when the batch settles): one whose `context/message`
 * line could never be written is refused now, idle or mid-batch, so nothing is half-written.
 */
function refuseOversizedInjection(injection: Injection, maxLineBytes: number): void {
  const bytes = eventLineBytes('context/message', injection);
  if (bytes > maxLineBytes)
    throw new TypeError(
      `agent.inject(): its context/message event would take a line of ${bytes} bytes, over maxLineBytes (${maxLineBytes}); inject less content`,
    );
}

/**
 * What a resume re-queues: accepted items the log never ran, as messages; they wake the agent only with `'run'`.
 * Steering a suspended turn still owes its next step stays with that turn.
 */
function resumedItems(events: Agent['log']['events'], mode: 'queue' | 'run'): InboxItem[] {
  const suspension = findSuspension(events);
  const owed = new Set(suspension ? suspendedSteering(events, suspension).map((item) => item.id) : []);
  return pendingInboxItems(events)
    .filter(({ accepted }) => !owed.has(accepted.id))
    .map(({ accepted }) =>
      freezeJson({
        id: accepted.id,
        content: accepted.content,
        source: accepted.source,
        contexts: accepted.contexts ?? [],
        ...(accepted.meta === undefined ? {} : { meta: accepted.meta }),
        wakeup: mode === 'run',
      }),
    );
}

/** Resolves when the actor sits in `idle` (no waking item queued) or has finished. */
function waitUntilIdle(actor: Agent['actor']): Promise<void> {
  const settled = (snapshot: ReturnType<Agent['actor']['getSnapshot']>): boolean =>
    snapshot.status !== 'active' || snapshot.matches('idle') || snapshot.matches('suspended');
  if (settled(actor.getSnapshot())) return Promise.resolve();
  return new Promise((resolve) => {
    const subscription = actor.subscribe({
      next: (snapshot) => {
        if (!settled(snapshot)) return;
        subscription.unsubscribe();
        resolve();
      },
      error: () => {
        subscription.unsubscribe();
        resolve();
      },
      complete: () => resolve(),
    });
  });
}

const CALLER_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const GENERATED_ID = /^m\d+$/;

// `followup(content, { id })`: the caller's id, checked, and the options without it.
function takeCallerId(method: string, options: unknown): { callerId: string | undefined; rest: unknown } {
  if (options === null || typeof options !== 'object' || !('id' in options)) {
    return { callerId: undefined, rest: options };
  }
  const { id, ...rest } = options as { id: unknown };
  if (method !== 'followup') {
    throw new TypeError(`agent.${method}(): the \`id\` option is only for followup()`);
  }
  if (typeof id !== 'string' || !CALLER_ID.test(id) || GENERATED_ID.test(id)) {
    throw new TypeError(
      `agent.followup(): expected \`id\` to be 1–128 characters of [A-Za-z0-9._:-] and not of the generated form m<number>, got ${JSON.stringify(id)}`,
    );
  }
  return { callerId: id, rest };
}

// Caller-supplied ids the session already accepted (generated ids cannot be sent again).
function acceptedCallerIds(events: readonly LogEvent[]): Set<string> {
  const ids = new Set<string>();
  for (const event of events) {
    if (event.type !== 'inbox/accepted') continue;
    const { id } = event.data as { id: string };
    if (!GENERATED_ID.test(id)) ids.add(id);
  }
  return ids;
}
