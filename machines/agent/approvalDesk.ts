import type { CoreEventData } from '../../kernel/index.js';
import { describeReceived } from '../../kernel/index.js';
import type { AgentStatus } from '../../seams/index.js';
import { capContext } from '../../seams/index.js';
import type { SessionLog } from '../../session/index.js';
import {
  type ApprovalAnswerInput,
  ApprovalError,
  expiredApprovals,
  findSuspension,
  planApprovalAnswer,
} from '../../session/index.js';

/** A pending deferred approval as `agent.approvals()` lists it (the `approval/requested` record). */
export type PendingApproval = CoreEventData<'approval/requested'>;

/** What `agent.resolveApproval()` takes: the answer, an optional reason, who answered and the `argsHash` seen. */
export interface ResolveApprovalOptions {
  outcome: 'allowed-once' | 'rejected';
  reason?: string;
  by?: string;
  argsHash?: string;
}

/** The two approval methods of an agent. */
export interface ApprovalDesk {
  approvals(): PendingApproval[];
  resolveApproval(
    requestId: string,
    answer: ResolveApprovalOptions,
  ): Promise<CoreEventData<'approval/resolved'>>;
}

/** What the desk reads and tells: the log, the agent's status, and how to wake the suspended turn. */
export interface ApprovalDeskPorts {
  readonly agentId: string;
  readonly log: SessionLog;
  readonly status: () => AgentStatus;
  /** Sends RESUME once no request of the suspended step is pending. */
  readonly resume: () => void;
}

/**
 * The agent's approval methods: they read the log (expired requests are answered `expired` first) and write
 * `approval/resolved` before anything acts on it; a refused answer is an `ApprovalError` and writes nothing.
 * @param ports the agent's log, status and resume
 */
export function createApprovalDesk(ports: ApprovalDeskPorts): ApprovalDesk {
  const { log } = ports;
  const refuseDead = (requestId: string): void => {
    const status = ports.status();
    if (status === 'disposed')
      throw new ApprovalError(
        'AGENT_DISPOSED',
        requestId,
        `agent "${ports.agentId}" is disposed: reopen its session (a new agent on the same store) to answer approval "${requestId}"`,
      );
    if (status === 'failed')
      throw new ApprovalError(
        'AGENT_FAILED',
        requestId,
        `agent "${ports.agentId}" failed (its store refused a write): reopen its session to answer approval "${requestId}"`,
        { cause: log.storeFailure },
      );
  };
  // Only a suspended agent answers for the log (else a running turn may be writing it).
  const expire = (): void => {
    if (ports.status() !== 'suspended') return;
    for (const data of expiredApprovals(log.events, new Date())) log.appendCore('approval/resolved', data);
  };
  const resumeIfAnswered = (): void => {
    const suspension = findSuspension(log.events);
    if (ports.status() === 'suspended' && suspension !== undefined && suspension.pending.length === 0)
      ports.resume();
  };
  return {
    approvals() {
      if (ports.status() !== 'disposed' && ports.status() !== 'failed') {
        expire();
        resumeIfAnswered();
      }
      return [...(findSuspension(log.events)?.pending ?? [])];
    },
    async resolveApproval(requestId, rawAnswer) {
      const answer = validateAnswer(requestId, rawAnswer);
      refuseDead(requestId);
      expire();
      const plan = planApprovalAnswer(log.events, requestId, answer);
      if (plan.kind === 'same') return plan.data;
      if (ports.status() !== 'suspended') {
        throw new ApprovalError(
          'NOT_SUSPENDED',
          requestId,
          `agent "${ports.agentId}" is ${ports.status()}, not suspended on approval "${requestId}"'s turn; answer once whenIdle() resolved with status 'suspended'`,
        );
      }
      log.appendCore('approval/resolved', plan.data);
      await log.flush();
      resumeIfAnswered();
      return plan.data;
    },
  };
}

function validateAnswer(requestId: unknown, raw: unknown): ApprovalAnswerInput {
  if (typeof requestId !== 'string' || requestId === '')
    throw new TypeError(
      `agent.resolveApproval(): expected a request id (string), got ${describeReceived(requestId)}`,
    );
  if (raw === null || typeof raw !== 'object')
    throw new TypeError(
      `agent.resolveApproval(): expected { outcome: 'allowed-once' | 'rejected', reason?, by?, argsHash? }, got ${describeReceived(raw)}`,
    );
  const { outcome, reason, by, argsHash } = raw as Record<string, unknown>;
  if (outcome !== 'allowed-once' && outcome !== 'rejected')
    throw new TypeError(
      `agent.resolveApproval(): expected outcome 'allowed-once' or 'rejected', got ${describeReceived(outcome)}`,
    );
  for (const [name, value] of [
    ['reason', reason],
    ['by', by],
    ['argsHash', argsHash],
  ] as const) {
    if (value !== undefined && typeof value !== 'string')
      throw new TypeError(
        `agent.resolveApproval(): expected \`${name}\` to be a string, got ${describeReceived(value)}`,
      );
  }
  return {
    outcome,
    ...(reason === undefined ? {} : { reason: capContext(reason as string, 'plugin').text }),
    ...(by === undefined ? {} : { by: by as string }),
    ...(argsHash === undefined ? {} : { argsHash: argsHash as string }),
  };
}
