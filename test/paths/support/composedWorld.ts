import type { AnyMachineSnapshot, InspectionEvent } from 'xstate';
import { z } from 'zod';
import {
  type Agent,
  type ApprovalAnswer,
  type ContentBlock,
  checkInvariants,
  checkLedger,
  createAgent,
  createSeams,
  createToolRegistry,
  defineTool,
  formatViolation,
  type LogEvent,
  ModelRequestError,
  type ModelStep,
  type Seams,
  type SessionStore,
  SessionStoreError,
} from '../../../index.js';
import { type NotificationRecording, recordNotifications } from '../../../testing/index.js';

/**
 * The outside world of one composed agent, deferred: every model request, tool body, seam listener,
 * approval question and store flush becomes a *wait* the driver settles; the driver may also deliver
 * messages, cancel or dispose, refuse the store's next write, and let time pass (fake `setTimeout`).
 */

/** Which listeners the agent has: each listed seam gets one listener whose decision waits for the driver. */
export interface ComposedConfig {
  readonly name: string;
  readonly seams: readonly DeferredSeam[];
  /** How many moves after the first `followup` the breadth-first search goes. */
  readonly depth: number;
}

export type DeferredSeam =
  | 'agent/session-start'
  | 'agent/prompt-submit'
  | 'agent/pre-step'
  | 'agent/post-step'
  | 'agent/request-error'
  | 'agent/turn-continuation'
  | 'agent/turn-stop'
  | 'tools/prepare'
  | 'tools/pre-execute'
  | 'tools/execute'
  | 'tools/post-execute';

/** A thing the world waits for: what it is, whose it is (a call id, or `turn`/`agent`), how to settle it. */
export interface Wait {
  readonly kind: string;
  readonly owner: string;
  readonly signal: AbortSignal | undefined;
  settle(outcome: string): void;
}

const text = (value: string): ContentBlock[] => [{ type: 'text', text: value }];
const context = { content: text('ctx'), source: { kind: 'plugin' as const, plugin: 'composed' } };

/** The model's answers: text, a cut answer, two parallel calls, two exclusive ones, a mixed pair, a failure. */
const modelOutcomes = ['text', 'maxTokens', 'parallel', 'exclusive', 'mixed', 'error'] as const;

/** Every outcome of every kind of wait; the first one is what driving to rest uses. */
export const outcomesOf: Readonly<Record<string, readonly string[]>> = {
  model: modelOutcomes,
  body: ['ok', 'throw'],
  flush: ['ok', 'fail', 'fsyncFailed'],
  // `deferred` parks the call (a later resolveApproval answers it); `deferredExpired` has already expired.
  approval: ['allowed-once', 'rejected', 'deferred', 'deferredExpired', 'throw'],
  'agent/session-start': ['ok', 'throw'],
  'agent/prompt-submit': ['allow', 'block', 'throw'],
  'agent/pre-step': ['ok', 'throw'],
  'agent/post-step': ['ok', 'throw'],
  'agent/request-error': ['fail', 'retry', 'throw'],
  'agent/turn-continuation': ['pass', 'stop', 'continue', 'throw'],
  'agent/turn-stop': ['pass', 'stop', 'throw'],
  'tools/prepare': ['keep', 'rewrite', 'throw'],
  // `allow` lets the guard pass; `allowGuardDenies`/`allowGuardThrows` arm the (synchronous) guard first.
  'tools/pre-execute': ['allow', 'allowGuardDenies', 'allowGuardThrows', 'deny', 'ask', 'throw'],
  'tools/execute': ['next', 'result', 'throw'],
  'tools/post-execute': ['accept', 'block', 'throw'],
};

/** What the driver may do besides settling a wait. */
export const deliveries = ['followup', 'queue', 'steer', 'inject'] as const;
/** How the driver answers a deferred approval the log holds (`resolve@<requestId>:<answer>`). */
export const approvalAnswers = ['allowed-once', 'rejected'] as const;
export const stops = ['cancel', 'cancelKeepInbox', 'dispose'] as const;
export const storeFaults = ['refuseNextWrite', 'failStore'] as const;

/** Bounds of one path. */
/** Bounds of one path (beyond the first `followup` every path starts with). */
export const bounds = { deliveries: 2, stops: 1, storeFaults: 1 } as const;

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(error: unknown): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** One composed agent and its deferred world. */
export class ComposedWorld {
  readonly agent: Agent;
  readonly waits: Wait[] = [];
  readonly used = { deliveries: 0, stops: 0, storeFaults: 0 };
  readonly notifications: NotificationRecording;
  /** Inspection events since the last `settle()` call's start: the flush waits until none arrive. */
  private activity = 0;
  private requests = 0;
  private disposed = false;
  private started = false;
  private delivered = 0;
  /** Errors a move threw that a user would not expect. */
  readonly surprises: string[] = [];
  private refuseType: string | undefined;
  private refuseCount = 0;
  private storeMode: 'ok' | 'refuseNext' | 'failed' = 'ok';
  private readonly guardPlan = new Map<string, 'deny' | 'throw'>();
  private readonly actors = new Map<string, { machine: string; id: string; snapshot: AnyMachineSnapshot }>();

  constructor(
    readonly config: ComposedConfig,
    private readonly observe: (event: InspectionEvent) => void,
  ) {
    const seams = createSeams({ logger: { error: () => {}, warn: () => {} } });
    this.notifications = recordNotifications(seams);
    this.registerListeners(seams);
    this.agent = createAgent({
      seams,
      tools: this.tools(),
      model: { request: (request) => this.modelRequest(request.signal) },
      store: this.store(),
      approval: { request: (question) => this.approvalRequest(question.callId) },
      maxStepsPerTurn: 2,
      maxRequestRetries: 1,
      cancelGraceMs: 50,
      sessionStartTimeoutMs: 100,
      logger: { error: () => {}, warn: () => {} },
      ...(process.env.NOINSPECT ? {} : { inspect: (event: InspectionEvent) => this.inspect(event) }),
    });
  }

  get events(): readonly LogEvent[] {
    return this.agent.log.events;
  }

  /** Lets everything the last move started run, until no machine moves any more. */
  async settle(): Promise<void> {
    let before: number;
    do {
      before = this.activity;
      await new Promise<void>((resolve) => setImmediate(resolve));
    } while (this.activity !== before);
  }

  /** Every move the driver may make now, as replayable labels. */
  moves(timersPending: boolean): string[] {
    const moves: string[] = [];
    const status = this.agent.actor.getSnapshot().status;
    for (const wait of this.waits) {
      for (const outcome of outcomesOf[wait.kind] ?? []) moves.push(`${wait.kind}@${wait.owner}:${outcome}`);
    }
    if (status === 'active' && !this.disposed && this.storeMode !== 'failed') {
      if (this.used.deliveries < bounds.deliveries) moves.push(...deliveries);
      // Keeping the inbox differs from dropping it only once something was delivered.
      if (this.used.stops < bounds.stops)
        moves.push(...stops.filter((stop) => stop !== 'cancelKeepInbox' || this.used.deliveries > 0));
      if (this.used.storeFaults < bounds.storeFaults && this.storeMode === 'ok') moves.push(...storeFaults);
    }
    // A deferred request may be answered at any wait: an agent not suspended on it refuses with NOT_SUSPENDED.
    if (status === 'active' && !this.disposed && this.storeMode !== 'failed') {
      for (const requestId of this.pendingRequests())
        for (const answer of approvalAnswers) moves.push(`resolve@${requestId}:${answer}`);
      // Listing answers expired requests and resumes a turn whose every request is answered.
      if (this.agent.status === 'suspended') moves.push('approvals');
    }
    if (timersPending) moves.push('time');
    return moves;
  }

  /** The deferred requests the log holds unanswered. */
  pendingRequests(): string[] {
    const pending = new Set<string>();
    for (const event of this.events) {
      const { requestId } = event.data as { requestId?: string };
      if (event.type === 'approval/requested' && requestId !== undefined) pending.add(requestId);
      else if (event.type === 'approval/resolved' && requestId !== undefined) pending.delete(requestId);
    }
    return [...pending];
  }

  /** Makes one move (not yet settled: call `settle()`). */
  apply(move: string): void {
    try {
      this.move(move);
    } catch (error) {
      // A refused write refuses the delivery that made it, with a clear error: anything else is a finding.
      this.expectRefusal(move, error);
    }
  }

  /** A refused write or an answer the agent cannot take now is a clear error; anything else is a finding. */
  private expectRefusal(move: string, error: unknown): void {
    const code = (error as { code?: string }).code;
    if (code === undefined || !expectedErrorCodes.has(code))
      this.surprises.push(`${move} threw ${String(error)}`);
  }

  private move(move: string): void {
    if (move.startsWith('resolve@')) {
      const colon = move.lastIndexOf(':');
      const outcome = move.slice(colon + 1) as (typeof approvalAnswers)[number];
      this.agent
        .resolveApproval(move.slice('resolve@'.length, colon), { outcome, by: 'composed' })
        .catch((error: unknown) => this.expectRefusal(move, error));
      return;
    }
    if (move === 'approvals') {
      this.agent.approvals();
      return;
    }
    const at = move.indexOf('@');
    if (at > 0) {
      const colon = move.lastIndexOf(':');
      const kind = move.slice(0, at);
      const owner = move.slice(at + 1, colon);
      const index = this.waits.findIndex((wait) => wait.kind === kind && wait.owner === owner);
      if (index < 0) throw new Error(`No wait ${kind}@${owner} to settle with "${move}"`);
      const [wait] = this.waits.splice(index, 1);
      wait!.settle(move.slice(colon + 1));
      return;
    }
    const n = this.delivered++;
    switch (move) {
      case 'followup':
        // The first message of every path is free: it opens the turn where the charts meet.
        if (this.started) this.used.deliveries++;
        this.started = true;
        this.agent.followup(`followup ${n}`);
        return;
      case 'queue':
      case 'steer':
        this.used.deliveries++;
        this.agent[move](`${move} ${n}`);
        return;
      case 'inject':
        this.used.deliveries++;
        this.agent.inject(`inject ${n}`);
        return;
      case 'cancel':
      case 'cancelKeepInbox':
        this.used.stops++;
        this.agent.cancel(undefined, { keepInbox: move === 'cancelKeepInbox' });
        return;
      case 'dispose':
        this.used.stops++;
        this.disposed = true;
        // The store outlives the process (approvals need it), so dispose() would keep the inbox: drop it.
        this.agent.dispose({ keepInbox: false }).catch(() => {});
        return;
      case 'refuseNextWrite':
        this.used.storeFaults++;
        this.storeMode = 'refuseNext';
        return;
      case 'failStore':
        this.used.storeFaults++;
        this.storeMode = 'failed';
        return;
      default:
        if (!move.startsWith('refuse:')) throw new Error(`Unknown move "${move}"`);
        // Examples only: refuse the next write of one event type (the proof refuses the next write, whatever it
        // is); `refuse:<type>*2` refuses its next two writes (a store that refuses a rewrite too).
        this.used.storeFaults++;
        [this.refuseType, this.refuseCount] = parseRefusal(move.slice('refuse:'.length));
        return;
    }
  }

  /** The live machines' state values, by machine, in a stable order. */
  machineStates(): Record<string, unknown[]> {
    const states: Record<string, unknown[]> = { agent: [], turn: [], toolBatch: [], toolCall: [] };
    const live = [...this.actors.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const actor of live) {
      if (actor.snapshot.status !== 'active') continue;
      const list = states[actor.machine] ?? [];
      list.push(actor.snapshot.value);
      states[actor.machine] = list;
    }
    return states;
  }

  /**
   * The log's shape, bounded to what the charts decide on beyond their state values: the steps of the last
   * turn (the step cap), whether it hit max-tokens (sticky), whether a turn is open in the log, the last
   * answer's tools, and how many deferred requests are unanswered.
   */
  logShape(): string {
    let steps = 0;
    let maxTokens = false;
    let open = false;
    // The last answer's tools (`par`/`ex`): which later calls may start beside a parked one depends on them.
    let tools = '';
    for (const event of this.events) {
      if (event.type === 'assistant/message')
        tools = (event.data as { content: { type: string; name?: string }[] }).content
          .filter((block) => block.type === 'tool-call')
          .map((block) => block.name)
          .join('+');
      if (event.type === 'turn/start') {
        steps = 0;
        maxTokens = false;
        open = true;
      } else if (event.type === 'turn/end') open = false;
      else if (event.type === 'step/start') steps++;
      else if (
        event.type === 'assistant/message' &&
        (event.data as { finish?: string }).finish === 'max-tokens'
      )
        maxTokens = true;
    }
    return `${steps}|${maxTokens}|${open}|${tools}|${this.pendingRequests().length}`;
  }

  /** Settles everything still waiting with its first outcome (bodies that ignore their signal included). */
  async driveToRest(advanceTime: () => boolean): Promise<void> {
    for (let round = 0; round < 200; round++) {
      await this.settle();
      const wait = this.waits.shift();
      if (wait !== undefined) {
        wait.settle(outcomesOf[wait.kind]![0]!);
        continue;
      }
      if (advanceTime()) continue;
      const snapshot = this.agent.actor.getSnapshot();
      if (snapshot.status !== 'active') return;
      // A suspended turn is answered (the first answer), or resumed once every request is answered.
      if (this.agent.status === 'suspended' && !this.disposed) {
        const [first] = this.agent.approvals();
        if (first !== undefined)
          this.agent
            .resolveApproval(first.requestId, { outcome: approvalAnswers[0], by: 'composed' })
            .catch((error: unknown) => this.expectRefusal('driving to rest', error));
        continue;
      }
      if (snapshot.value === 'idle' && !this.disposed) {
        this.disposed = true;
        this.agent.dispose({ keepInbox: false }).catch(() => {});
        continue;
      }
      throw new Error(`nothing waits, yet the agent is ${JSON.stringify(snapshot.value)}`);
    }
    throw new Error('The agent does not come to rest');
  }

  /** Log invariants (with `atRest` once the agent is disposed; `open` once the store failed) and the ledger. */
  violations(): string[] {
    const snapshot = this.agent.actor.getSnapshot();
    const failed = snapshot.status === 'done' && snapshot.value === 'failed';
    const atRest = snapshot.status === 'done' && !failed;
    const found = [...this.surprises];
    found.push(...checkInvariants(this.events, { atRest, open: failed }).map(formatViolation));
    if (!failed) found.push(...checkLedger(this.notifications.events).map((v) => formatViolation(v)));
    return found;
  }

  private inspect(event: InspectionEvent): void {
    this.activity++;
    this.observe(event);
    if (event.type !== '@xstate.snapshot' && event.type !== '@xstate.microstep') return;
    const snapshot = event.snapshot as AnyMachineSnapshot;
    const machine = (snapshot as { machine?: { id: string } }).machine;
    if (machine === undefined) return;
    this.actors.set(event.actorRef.sessionId, {
      machine: machine.id,
      id: (event.actorRef as { id?: string }).id ?? '',
      snapshot,
    });
  }

  private wait(kind: string, owner: string, signal: AbortSignal | undefined, settle: (o: string) => void) {
    this.waits.push({ kind, owner, signal, settle });
  }

  private modelRequest(signal: AbortSignal): Promise<ModelStep> {
    const request = this.requests++;
    const { promise, resolve, reject } = deferred<ModelStep>();
    const aborted = () => reject(new ModelRequestError({ message: 'aborted', code: 'ABORTED' }));
    signal.addEventListener('abort', aborted, { once: true });
    this.wait('model', `r${request}`, signal, (outcome) => {
      signal.removeEventListener('abort', aborted);
      const call = (i: number, name: string) => ({
        type: 'tool-call' as const,
        id: `r${request}c${i}`,
        name,
        arguments: '{}',
      });
      switch (outcome) {
        case 'text':
          return resolve({ content: text('answer'), finish: 'stop' });
        case 'maxTokens':
          return resolve({ content: text('cut'), finish: 'max-tokens' });
        case 'parallel':
          return resolve({ content: [call(0, 'par'), call(1, 'par')], finish: 'tool-calls' });
        case 'exclusive':
          return resolve({ content: [call(0, 'ex'), call(1, 'ex')], finish: 'tool-calls' });
        case 'mixed':
          return resolve({ content: [call(0, 'par'), call(1, 'ex')], finish: 'tool-calls' });
        default:
          return reject(new ModelRequestError({ message: 'overloaded', code: 'RATE_LIMIT' }));
      }
    });
    return promise;
  }

  private approvalRequest(callId: string): Promise<ApprovalAnswer> {
    const { promise, resolve, reject } = deferred<ApprovalAnswer>();
    this.wait('approval', callId, undefined, (outcome) => {
      if (outcome === 'throw') return reject(new Error('approval channel failed'));
      if (outcome === 'deferredExpired') return resolve({ outcome: 'deferred', expiresAt: longAgo });
      resolve(outcome as ApprovalAnswer);
    });
    return promise;
  }

  private tools() {
    const tools = createToolRegistry();
    const body = (name: string) => (_args: unknown, exec: { callId: string; signal: AbortSignal }) => {
      const { promise, resolve, reject } = deferred<string>();
      this.wait('body', exec.callId, exec.signal, (outcome) =>
        outcome === 'ok' ? resolve(`${name} ran`) : reject(new Error(`${name} failed`)),
      );
      return promise;
    };
    tools.register(
      defineTool({
        name: 'par',
        description: 'parallel',
        parameters: z.object({}).passthrough(),
        concurrency: 'parallel',
        execute: body('par'),
      }),
    );
    tools.register(
      defineTool({
        name: 'ex',
        description: 'exclusive',
        parameters: z.object({}).passthrough(),
        concurrency: 'exclusive',
        execute: body('ex'),
        // A finalizer, so the call's finalize phase runs.
        finalizeContent: (_exec, result) => result.content,
      }),
    );
    return tools;
  }

  private store(): SessionStore {
    const flushFailure = new SessionStoreError('FSYNC_FAILED', 'composed', 'fsync failed');
    const writeFailure = new SessionStoreError('WRITE_FAILED', 'composed', 'disk full');
    return {
      sessionId: undefined,
      initialEvents: [],
      repairs: [],
      // As a file store: a deferred approval is answered later, so the store must outlive the process.
      durable: true,
      write: (event) => {
        if (event.type === this.refuseType) {
          if (--this.refuseCount === 0) this.refuseType = undefined;
          throw new Error(`write of ${event.type} refused once`);
        }
        if (this.storeMode === 'failed') throw writeFailure;
        if (this.storeMode === 'refuseNext') {
          this.storeMode = 'ok';
          throw new Error('write refused once');
        }
      },
      flush: () => {
        const { promise, resolve, reject } = deferred<void>();
        // `fail` is a one-off failure; `fsyncFailed` latches the store, as a file store's failed fsync does.
        this.wait('flush', 'store', undefined, (outcome) =>
          outcome === 'ok' ? resolve() : reject(outcome === 'fail' ? flushFailedOnce() : flushFailure),
        );
        return promise;
      },
      close: async () => {},
    };
  }

  private registerListeners(seams: Seams): void {
    const owner = (ctx: { turn?: number; step?: number }) => `t${ctx.turn ?? 0}s${ctx.step ?? 0}`;
    for (const seam of this.config.seams) {
      const listener = (ctx: any, next?: () => Promise<unknown>): Promise<unknown> => {
        const { promise, resolve, reject } = deferred<unknown>();
        const who = seam.startsWith('tools/')
          ? (ctx.callId ?? ctx.exec?.callId)
          : seam === 'agent/session-start'
            ? 'agent'
            : owner(ctx);
        this.wait(seam, who, ctx.signal ?? ctx.exec?.signal, (outcome) => {
          if (outcome === 'throw') return reject(new Error(`listener on ${seam} threw`));
          const decided = this.decide(seam, outcome, ctx);
          if (decided === NEXT) return resolve(next === undefined ? undefined : next());
          resolve(decided);
        });
        return promise;
      };
      seams.on(seam as never, listener as never, { name: `composed:${seam}` });
    }
    // The guard does what the pre-execute decision armed for its call (guards are synchronous).
    if (this.config.seams.includes('tools/pre-execute')) {
      seams.guard((exec) => {
        const plan = this.guardPlan.get(exec.callId);
        if (plan === 'throw') throw new Error('guard threw');
        return plan === 'deny' ? 'guard says no' : undefined;
      });
    }
  }

  private decide(seam: DeferredSeam, outcome: string, ctx: any): unknown {
    switch (`${seam}:${outcome}`) {
      case 'agent/prompt-submit:allow':
        return { kind: 'allow', additionalContexts: [context] };
      case 'agent/prompt-submit:block':
        return { kind: 'block', reason: 'no' };
      case 'agent/request-error:fail':
        return { action: 'fail' };
      case 'agent/request-error:retry':
        return { action: 'retry' };
      case 'agent/turn-continuation:stop':
        return { action: 'stop' };
      case 'agent/turn-continuation:continue':
        return { action: 'continue', reason: { content: text('again'), source: { kind: 'user' } } };
      case 'agent/turn-stop:stop':
        return { action: 'stop', reason: 'enough' };
      case 'agent/turn-stop:pass':
        return undefined;
      case 'tools/prepare:keep':
        return { kind: 'keep' };
      case 'tools/prepare:rewrite':
        return { kind: 'rewrite', arguments: { rewritten: true }, reason: 'composed' };
      case 'tools/pre-execute:allow':
        return { kind: 'allow', additionalContexts: [context] };
      case 'tools/pre-execute:allowGuardDenies':
        this.guardPlan.set(ctx.callId, 'deny');
        return { kind: 'allow' };
      case 'tools/pre-execute:allowGuardThrows':
        this.guardPlan.set(ctx.callId, 'throw');
        return { kind: 'allow' };
      case 'tools/pre-execute:deny':
        return { kind: 'deny', reason: 'no' };
      case 'tools/pre-execute:ask':
        return { kind: 'ask', reason: 'sure?' };
      case 'tools/execute:result':
        return { content: text('from the wrapper'), isError: false };
      case 'tools/post-execute:accept':
        return { kind: 'accept', additionalContexts: [context] };
      case 'tools/post-execute:block':
        return { kind: 'block', feedback: text('blocked') };
      default:
        // ok / pass / next: hand on (a serial or notify seam resolves with nothing).
        return NEXT;
    }
  }
}

const NEXT = Symbol('next');

/** A flush that fails once (the store does not latch): a caller awaiting it gets this error. */
const flushFailedOnce = () => Object.assign(new Error('flush failed once'), { code: 'FLUSH_FAILED' });

/** An expiry already past: the request resolves `expired` the next time the agent lists or resumes. */
const longAgo = '2000-01-01T00:00:00.000Z';

/**
 * Errors a move may meet: a refused write (`STORE_WRITE_FAILED`, a latched `WRITE_FAILED`/`FSYNC_FAILED`) and an
 * answer the agent cannot take now (not suspended on it, already answered otherwise, disposed or failed).
 */
const expectedErrorCodes = new Set([
  'STORE_WRITE_FAILED',
  'WRITE_FAILED',
  'FSYNC_FAILED',
  'FLUSH_FAILED',
  'NOT_SUSPENDED',
  'APPROVAL_ALREADY_RESOLVED',
  'AGENT_DISPOSED',
  'AGENT_FAILED',
]);

function parseRefusal(spec: string): [string, number] {
  const star = spec.indexOf('*');
  return star < 0 ? [spec, 1] : [spec.slice(0, star), Number(spec.slice(star + 1))];
}
