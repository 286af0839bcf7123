import {
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type EventObject,
  initialTransition,
  transition,
} from 'xstate';
import { createAgentLogic } from '../../../machines/agent/logic.js';
import type { AgentContext, AgentEvent, AgentMachineServices } from '../../../machines/agent/types.js';
import { agentMachine, graphEvents } from '../../../machines/agent.js';
import type { InboxItem } from '../../../machines/runtime/inbox.js';
import type { TurnInput, TurnOutput } from '../../../machines/turn/types.js';
import { createSeams } from '../../../seams/index.js';
import type { Seams } from '../../../seams/types.js';
import { createSessionLog, findSuspension, hashArguments, nextRequestId } from '../../../session/index.js';
import type { SessionLog } from '../../../session/types.js';
import {
  describeEvent,
  type MachinePath,
  type NotificationRecording,
  type PathRun,
  recordNotifications,
  runPath,
  type SeamConfiguration,
  shortestSeamPaths,
} from '../../../testing/index.js';
import { createToolRegistryCore } from '../../../tools/index.js';
import { fakeAgent, unusedModel } from './turnPaths.js';

/**
 * The agent snapshots one seam, `agent/session-start`, so its `n + 2` configurations are two distinct
 * ones ("without agent/session-start" is "all empty").
 */
export const agentConfigs: readonly SeamConfiguration[] = [
  { name: 'all empty', present: { 'agent/session-start': false } },
  { name: 'all present', present: { 'agent/session-start': true } },
];

/**
 * Dedup key of the agent graph. The inbox grows with every SEND/QUEUE/STEER, so nodes are keyed by the
 * state value and what the guards and the claim turn on: the queue length capped at 2 (two waiting
 * items are where "claim exactly one" shows), whether a waking item is queued, held injections,
 * a pending discard, and the leftover/disposing flags (94 + 99 paths). The event that led to the node
 * is part of the key too, so every transition gets a path: a STEER forwarded to the turn, or a turn
 * ending with leftover steering, changes nothing the key would otherwise see, yet it is exactly what
 * the inbox ledger is about (304 + 335 paths).
 */
export function serializeAgentState(snapshot: AnyMachineSnapshot, event: EventObject | undefined): string {
  const c = snapshot.context as AgentContext;
  return JSON.stringify([
    event === undefined ? null : describeEvent(event),
    snapshot.value,
    Math.min(c.queued.length, 2),
    c.queued.some((item) => item.wakeup),
    c.held.length > 0,
    c.pendingDiscard.length > 0,
    c.discardLeftover,
    c.disposing,
  ]);
}

/** Shortest agent paths for both configurations. */
export function agentPaths() {
  return shortestSeamPaths(agentMachine, {
    seamConfigs: agentConfigs,
    events: graphEvents,
    inputFor: (config) => ({
      agentId: 'a1',
      source: 'startup',
      sessionStartPresent: config.present['agent/session-start'] === true,
      resumed: [],
    }),
    serializeState: serializeAgentState,
    filterEvents: isAgentEventReachable,
  });
}

/** A turn suspends only while it is open; RESUME comes only when every request is answered (suspended). */
function isAgentEventReachable(snapshot: AnyMachineSnapshot, event: EventObject): boolean {
  if (event.type === 'TURN_SUSPENDED') return snapshot.matches({ running: { inTurn: 'open' } });
  return true;
}

const suspendedCall = { type: 'tool-call' as const, id: 'c1', name: 'echo', arguments: '{}' };

/** What a turn that suspends writes: its prompt, a step whose call parked on a new request, `turn/suspended`. */
function writeSuspendedTurn(log: SessionLog, input: TurnInput): void {
  const { turn, item } = input;
  const requestId = nextRequestId(log.events);
  log.appendCore('turn/start', { turn, trigger: { kind: 'message', source: item.source } });
  log.appendCore('user/message', { content: [...item.content], source: item.source });
  log.appendCore('step/start', { turn, step: 1 });
  log.appendCore('assistant/message', { turn, step: 1, content: [suspendedCall], finish: 'tool-calls' });
  log.appendCore('tool/call', { turn, step: 1, callId: 'c1', name: 'echo', arguments: '{}' });
  log.appendCore('approval/requested', {
    requestId,
    callId: 'c1',
    turn,
    step: 1,
    tool: 'echo',
    arguments: {},
    argsHash: hashArguments({}),
    askedBy: 'p',
  });
  log.appendCore('turn/suspended', {
    turn,
    step: 1,
    pending: [requestId],
    held: [],
    notStarted: [],
    contexts: [],
  });
}

/** Answers every pending request of the log's suspension `allowed-once` (what makes the agent RESUME). */
function answerSuspension(log: SessionLog): void {
  for (const request of findSuspension(log.events)?.pending ?? [])
    log.appendCore('approval/resolved', {
      requestId: request.requestId,
      outcome: 'allowed-once',
      argsHash: request.argsHash,
    });
}

/** A hand-picked path through the agent graph: the graph events of the given types, in order. */
export function agentPathThrough(input: unknown, types: readonly string[]): MachinePath {
  let [state] = initialTransition(agentMachine, input as never);
  const steps: { event: EventObject; state: AnyMachineSnapshot }[] = [
    { event: { type: 'xstate.init' }, state },
  ];
  for (const type of types) {
    const event = graphEvents.find((candidate) => candidate.type === type);
    if (event === undefined) throw new Error(`The agent's graphEvents have no "${type}"`);
    [state] = transition(agentMachine, state, event as AgentEvent);
    steps.push({ event, state });
  }
  return { state, steps, weight: types.length } as unknown as MachinePath;
}

export interface AgentPathOptions {
  /** A variant of the agent logic (mutation tests), built over the run's services. */
  readonly mutate?: (logic: typeof agentMachine, services: AgentMachineServices) => AnyStateMachine;
}

export interface AgentPathRun extends PathRun<SessionLog> {
  readonly notifications: NotificationRecording;
  /** The item each turn was started with, in order. */
  readonly turnItems: readonly string[];
}

/** Every delivery of a path gets its own item id (`m1@3`), so the ledger can pair them. */
function withFreshItemId(event: EventObject, index: number): EventObject {
  const delivery = event as AgentEvent;
  if (delivery.type !== 'SEND' && delivery.type !== 'QUEUE' && delivery.type !== 'STEER') return event;
  const fresh: AgentEvent = { ...delivery, item: { ...delivery.item, id: `${delivery.item.id}@${index}` } };
  return fresh;
}

/**
 * A stand-in for the turn, run when its stub settles. It writes what a real turn writes for its item
 * (`turn/start`, `user/message`, `turn/end` with the output's reason) and keeps the inbox books a real
 * turn keeps: steering the agent forwarded to it is drained (`agent/inbox/dequeue` + `steering/message`)
 * by a completed turn and handed back as dropped by any other; the graph's leftover steering is a
 * continuation the turn enqueued itself (`agent/inbox/enqueue`, as a `continue` with a reason does).
 * A turn that dies leaves its turn open for the agent's repair. Nothing else writes to the log while a
 * turn is open (injections go to the turn or are held), so writing it all at settle keeps the order.
 */
function createStandInTurn(log: SessionLog, seams: Seams, notifications: NotificationRecording) {
  const accounted = new Set<string>();
  const turnItems: string[] = [];
  const settle = (kind: 'done' | 'error', input: TurnInput, payload: unknown) => {
    const agentId = input.agentId;
    const received = notifications
      .of('agent/inbox/enqueue')
      .filter((item) => item.steering && !accounted.has(item.id));
    for (const item of received) accounted.add(item.id);
    const { turn, item } = input;
    if (input.resume) {
      // A resumed turn goes on in its suspended step: the call's result and the step's end.
      const cancelled = input.resume.cancel != null;
      if (!cancelled) log.appendCore('turn/resumed', { turn, step: 1 });
      if (kind === 'error') return undefined;
      log.appendCore('tool/result', {
        turn,
        step: 1,
        callId: 'c1',
        content: [{ type: 'text', text: cancelled ? 'aborted' : 'ok' }],
        isError: cancelled,
        ...(cancelled ? { error: { code: 'ABORTED_BEFORE_DISPATCH', message: 'aborted' } } : {}),
      });
      log.appendCore('step/end', { turn, step: 1 });
    } else {
      turnItems.push(input.item.id);
      log.appendCore('turn/start', { turn, trigger: { kind: 'message', source: item.source } });
      log.appendCore('user/message', { content: [...item.content], source: item.source });
      if (kind === 'error') return undefined;
    }

    const output = payload as TurnOutput;
    const continued: InboxItem[] = output.leftoverSteering.map((left) => ({
      ...left,
      id: `${left.id}@t${turn}`,
    }));
    for (const left of continued) {
      accounted.add(left.id);
      const { id, content, source } = left;
      seams.notify('agent/inbox/enqueue', { agentId, id, content, source, steering: true, wakeup: true });
    }
    const drains = output.reason.kind === 'completed' && !output.terminalStopped && continued.length === 0;
    const dropped: InboxItem[] = [];
    for (const { id, content, source } of received) {
      if (drains) {
        seams.notify('agent/inbox/dequeue', { agentId, id, steering: true });
        log.appendCore('steering/message', { turn, content: [...content], source });
      } else {
        dropped.push({ id, content, source, contexts: [], wakeup: true });
      }
    }
    // A turn resumed to cancel ends aborted (approvals.md).
    const reason = input.resume?.cancel ? { kind: 'aborted' as const } : output.reason;
    log.appendCore('turn/end', { turn, reason });
    return { payload: { ...output, reason, leftoverSteering: continued, droppedSteering: dropped } };
  };
  // A turn that suspends writes its prompt and its suspended step when it tells the agent (TURN_SUSPENDED).
  const suspend = (input: TurnInput): void => {
    turnItems.push(input.item.id);
    writeSuspendedTurn(log, input);
  };
  return { settle, suspend, turnItems };
}

/**
 * Executes one agent path: the real agent logic (inbox, claim, status, injection turns, repair,
 * notifications) over a real log and seams; the session start and the turn are deferred stubs, the
 * turn played by the stand-in above, and the path sends the final settle's outcome (`settle.done`).
 * Quiescence disposes the agent.
 */
export async function executeAgentPath(
  path: MachinePath,
  input: unknown,
  options: AgentPathOptions = {},
): Promise<AgentPathRun> {
  const log = createSessionLog();
  const seams = createSeams({ logger: { error: () => {} } });
  const notifications = recordNotifications(seams);
  const services: AgentMachineServices = {
    agentId: 'a1',
    tools: createToolRegistryCore(),
    cancelGraceMs: 5_000,
    log,
    seams,
    model: unusedModel,
    agent: fakeAgent(log),
    maxParallelToolCalls: 10,
    maxRequestRetries: 1,
    sessionStartTimeoutMs: 1_000,
    reportError: () => {},
    logger: { error: () => {} },
  };
  // Disposal's last flush is the agent's own phase, not an actor: the path sends its outcome.
  const logic = createAgentLogic(services).provide({ actions: { startSettle: () => {} } });
  const standIn = createStandInTurn(log, seams, notifications);
  let agentActor: { getSnapshot(): AnyMachineSnapshot } | undefined;
  const run = await runPath(path, {
    prepare: (actor) => {
      agentActor = actor;
    },
    // What the stubbed turn and an answerer write before the agent hears of it.
    beforeStep: (event) => {
      if (event.type === 'TURN_SUSPENDED') {
        const current = (agentActor?.getSnapshot().context as AgentContext | undefined)?.current;
        if (current) standIn.suspend(current);
      } else if (event.type === 'RESUME') answerSuspension(log);
    },
    logic: options.mutate ? options.mutate(logic, services) : logic,
    input,
    events: graphEvents,
    quiesce: [{ type: 'DISPOSE' }, { type: 'settle.done' }],
    prepareEvent: withFreshItemId,
    onSettle: ({ kind, pending, payload }) =>
      pending.id === 'turn' ? standIn.settle(kind, pending.input as TurnInput, payload) : undefined,
    log,
  });
  notifications.dispose();
  return { ...run, notifications, turnItems: standIn.turnItems };
}
