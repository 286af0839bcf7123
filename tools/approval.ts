import { type ApprovalDecision, ApprovalDecisionSchema, ApprovalOutcomeSchema } from '../seams/schemas.js';
import type { AgentHandle, ApprovalChannel, DispatchScope, SeamSet, ToolExecution } from '../seams/types.js';

/** How an `ask` ended. */
export type ApprovalVerdict =
  | { readonly kind: 'granted' }
  | { readonly kind: 'aborted' }
  | { readonly kind: 'refused'; readonly refusal: ApprovalRefusalKind; readonly reason?: string };

export type ApprovalRefusalKind =
  | 'rejected'
  | 'cancelled'
  | 'unavailable'
  | 'no approval channel'
  | 'no agent';

// `remember: 'tool'` answers, per agent and tool; dropped with the agent handle.
const remembered = new WeakMap<AgentHandle, Map<string, ApprovalDecision>>();

function remember(exec: ToolExecution, decision: ApprovalDecision): void {
  if (decision.remember !== 'tool' || exec.agent === undefined) return;
  const byTool = remembered.get(exec.agent) ?? new Map<string, ApprovalDecision>();
  byTool.set(exec.name, decision);
  remembered.set(exec.agent, byTool);
}

function verdictOf(decision: ApprovalDecision): ApprovalVerdict {
  if (decision.outcome === 'allowed-once') return { kind: 'granted' };
  return { kind: 'refused', refusal: 'rejected', ...(decision.reason ? { reason: decision.reason } : {}) };
}

// The bottom of the chain: decided by 'default' means the approval channel answers (this value is never applied).
const FALL_THROUGH: ApprovalDecision = Object.freeze({
  outcome: 'rejected',
  reason: 'no tools/approval listener answered: the approval channel decides',
});

/** What `decideApproval` needs for one ask. */
export interface ApprovalAsk {
  readonly exec: ToolExecution;
  readonly reason: string | undefined;
  readonly seams: SeamSet;
  /** The channel to ask when no `tools/approval` listener answers (agent-less calls: only the caller's). */
  readonly channel: ApprovalChannel | undefined;
  /** Whether the registry has a channel although this call may not use it (agent-less call). */
  readonly registryHasChannel: boolean;
  readonly scope: DispatchScope;
}

/**
 * Answers an `ask`: a remembered answer for this tool, else the `tools/approval` waterfall (a
 * listener that answers decides, `next()` falls through), else the approval channel, whose answer
 * may be a plain outcome or `{ outcome, reason?, remember? }`.
 * @param ask the call, its ask reason, the listener snapshot and the channel
 */
export async function decideApproval(ask: ApprovalAsk): Promise<ApprovalVerdict> {
  const { exec } = ask;
  const known = exec.agent === undefined ? undefined : remembered.get(exec.agent)?.get(exec.name);
  if (known !== undefined) return verdictOf(known);
  if (ask.seams.has('tools/approval')) {
    const ctx = { exec, ...(ask.reason === undefined ? {} : { reason: ask.reason }) };
    const outcome = await ask.seams.waterfall('tools/approval', ctx, FALL_THROUGH, ask.scope);
    if (outcome.decidedBy !== 'default') {
      remember(exec, outcome.decision);
      return verdictOf(outcome.decision);
    }
  }
  if (!ask.channel)
    return { kind: 'refused', refusal: ask.registryHasChannel ? 'no agent' : 'no approval channel' };
  const raw = await ask.channel.request({
    ...(exec.agent ? { agent: exec.agent } : {}),
    toolName: exec.name,
    callId: exec.callId,
    arguments: exec.arguments,
    ...(ask.reason === undefined ? {} : { reason: ask.reason }),
    signal: exec.signal,
  });
  if (typeof raw === 'object' && raw !== null) {
    const decision = ApprovalDecisionSchema.parse(raw);
    remember(exec, decision);
    return verdictOf(decision);
  }
  const outcome = ApprovalOutcomeSchema.parse(raw);
  if (outcome === 'allowed-once') return { kind: 'granted' };
  if (outcome === 'cancelled' && exec.signal.aborted) return { kind: 'aborted' };
  return { kind: 'refused', refusal: outcome };
}
