import type { AgentLogView, LogEvent, UsageTotal } from '../../kernel/index.js';
import type { AgentStatus } from '../../seams/index.js';
import type { Agent } from './createAgent.js';

// Why classes: an object literal with getters is a slow-mode dictionary in V8 (~1.6 KiB for the
// agent handle); a class keeps its getters on the prototype and the instance in fast mode.

/** What `LiveAgent` reads its live values through. */
export interface LiveAgentReaders {
  readonly status: () => AgentStatus;
  readonly actor: () => Agent['actor'];
  readonly usage: () => UsageTotal;
}

/** The handle `createAgent` returns: its methods as fields, its live values as prototype getters. */
export class LiveAgent implements Agent {
  readonly id: Agent['id'];
  readonly cwd: Agent['cwd'];
  readonly log: Agent['log'];
  readonly env: Agent['env'];
  readonly followup: Agent['followup'];
  readonly queue: Agent['queue'];
  readonly steer: Agent['steer'];
  readonly inject: Agent['inject'];
  readonly cancel: Agent['cancel'];
  readonly whenIdle: Agent['whenIdle'];
  readonly stream: Agent['stream'];
  readonly dispose: Agent['dispose'];
  readonly approvals: Agent['approvals'];
  readonly resolveApproval: Agent['resolveApproval'];
  readonly #read: LiveAgentReaders;

  constructor(fields: Omit<Agent, 'status' | 'actor' | 'usage'>, read: LiveAgentReaders) {
    this.id = fields.id;
    this.cwd = fields.cwd;
    this.log = fields.log;
    this.env = fields.env;
    this.followup = fields.followup;
    this.queue = fields.queue;
    this.steer = fields.steer;
    this.inject = fields.inject;
    this.cancel = fields.cancel;
    this.whenIdle = fields.whenIdle;
    this.stream = fields.stream;
    this.dispose = fields.dispose;
    this.approvals = fields.approvals;
    this.resolveApproval = fields.resolveApproval;
    this.#read = read;
  }

  get status(): AgentStatus {
    return this.#read.status();
  }

  get actor(): Agent['actor'] {
    return this.#read.actor();
  }

  get usage(): UsageTotal {
    return this.#read.usage();
  }
}

/** The agent's view of its log: the events (live), subscribe, and plugin appends. */
export class AgentLog implements AgentLogView {
  readonly subscribe: AgentLogView['subscribe'];
  readonly append: AgentLogView['append'];
  readonly barrier: (() => Promise<void>) | undefined;
  readonly #events: () => readonly LogEvent[];

  constructor(
    events: () => readonly LogEvent[],
    subscribe: AgentLogView['subscribe'],
    append: AgentLogView['append'],
    barrier: (() => Promise<void>) | undefined,
  ) {
    this.#events = events;
    this.subscribe = subscribe;
    this.append = append;
    this.barrier = barrier;
  }

  get events(): readonly LogEvent[] {
    return this.#events();
  }
}
