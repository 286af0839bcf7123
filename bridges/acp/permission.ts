import type * as acp from '@agentclientprotocol/sdk';
import type { ApprovalAnswer, ApprovalDecision, CoreEventData, JsonValue } from '../../kernel/index.js';
import type { ApprovalChannel, Listener } from '../../seams/index.js';
import { type KindOf, toToolCall } from './toolCalls.js';

export const PERMISSION_OPTIONS: readonly acp.PermissionOption[] = Object.freeze([
  { optionId: 'allow_once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'allow_always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject_once', name: 'Reject', kind: 'reject_once' },
  { optionId: 'reject_always', name: 'Always reject', kind: 'reject_always' },
]);

const ANSWERS: Readonly<Record<string, ApprovalAnswer>> = {
  allow_once: 'allowed-once',
  allow_always: { outcome: 'allowed-once', remember: 'tool' },
  reject_once: { outcome: 'rejected', reason: 'the user rejected it in the editor' },
  reject_always: {
    outcome: 'rejected',
    reason: 'the user rejected this tool in the editor',
    remember: 'tool',
  },
};

/** How the channel reaches the editor. */
export interface PermissionLink {
  readonly sessionId: string;
  readonly kindOf: KindOf;
  requestPermission(params: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse>;
  report(message: string): void;
  /** Whether the editor has gone (stdin closed): an ask is then deferred, to be answered after `session/load`. */
  disconnected(): boolean;
}

/** The approval channel of one ACP session, and whether a question of it is open or was deferred by a disconnect. */
export interface PermissionChannel extends ApprovalChannel {
  readonly waiting: boolean;
}

/** The editor's question about a call: the call as a tool call, with why approval is asked. */
function permissionRequest(
  link: PermissionLink,
  call: { turn: number; step: number; callId: string; name: string; arguments: JsonValue },
  reason: string | undefined,
): acp.RequestPermissionRequest {
  const toolCall = toToolCall({ ...call, arguments: toArgumentText(call.arguments) }, link.kindOf);
  const why = reason?.trim();
  return {
    sessionId: link.sessionId,
    toolCall:
      why === undefined || why === ''
        ? toolCall
        : { ...toolCall, content: [{ type: 'content', content: { type: 'text', text: why } }] },
    options: [...PERMISSION_OPTIONS],
  };
}

/**
 * The approval channel of one ACP session: an `ask` becomes `session/request_permission`.
 * @param link the session id, tool kinds and the client request
 */
export function createPermissionChannel(link: PermissionLink): PermissionChannel {
  let asking = 0;
  let deferred = false;
  const defer = (): ApprovalAnswer => {
    deferred = true;
    return { outcome: 'deferred' };
  };
  return {
    get waiting() {
      return asking > 0 || deferred;
    },
    async request(question) {
      // The editor is gone: the question waits in the session for the next editor (approvals.md, ACP).
      if (link.disconnected()) return defer();
      let response: acp.RequestPermissionResponse;
      asking++;
      try {
        response = await link.requestPermission(
          permissionRequest(
            link,
            {
              turn: question.turn ?? 0,
              step: question.step ?? 0,
              callId: question.callId,
              name: question.toolName,
              arguments: question.arguments,
            },
            question.reason,
          ),
        );
      } catch (error) {
        if (link.disconnected()) return defer();
        // A client that cannot ask: nobody approved, so the call is denied.
        link.report(`session/request_permission failed: ${(error as Error).message}`);
        return 'unavailable';
      } finally {
        asking--;
      }
      if (response.outcome.outcome === 'cancelled') return 'cancelled';
      return ANSWERS[response.outcome.optionId] ?? 'unavailable';
    },
  };
}

/** What `askPendingAgain` needs of the agent. */
export interface ApprovalDeskOf {
  approvals(): CoreEventData<'approval/requested'>[];
  resolveApproval(
    requestId: string,
    answer: { outcome: 'allowed-once' | 'rejected'; reason?: string; by?: string; argsHash?: string },
  ): Promise<unknown>;
}

/**
 * `session/load` of a suspended session: each pending request is asked again as `session/request_permission`;
 * the editor's answer is recorded with `resolveApproval` (the turn resumes once none is pending). A cancelled
 * or failed question leaves its request pending.
 * @param link the loading connection
 * @param agent the loaded session's agent
 */
export async function askPendingAgain(link: PermissionLink, agent: ApprovalDeskOf): Promise<void> {
  await Promise.all(
    agent.approvals().map(async (request) => {
      let response: acp.RequestPermissionResponse;
      try {
        response = await link.requestPermission(
          permissionRequest(
            link,
            { ...request, name: request.tool, arguments: request.arguments },
            request.reason,
          ),
        );
      } catch (error) {
        if (!link.disconnected())
          link.report(`session/request_permission failed: ${(error as Error).message}`);
        return;
      }
      if (response.outcome.outcome === 'cancelled') return;
      const answer = ANSWERS[response.outcome.optionId];
      const decision: { outcome?: string | undefined; reason?: string | undefined } =
        typeof answer === 'object' ? answer : { outcome: answer };
      if (decision.outcome !== 'allowed-once' && decision.outcome !== 'rejected') return;
      try {
        await agent.resolveApproval(request.requestId, {
          outcome: decision.outcome,
          ...(decision.reason === undefined ? {} : { reason: decision.reason }),
          by: 'editor',
          argsHash: request.argsHash,
        });
      } catch (error) {
        link.report(`answering approval ${request.requestId} failed: ${(error as Error).message}`);
      }
    }),
  );
}

/**
 * A `tools/approval` listener that answers again what the editor answered "always" for a tool,
 * for the rest of this session (the channel is not asked again).
 */
export function createRememberedApprovals(): Listener<'tools/approval'> {
  const remembered = new Map<string, ApprovalDecision>();
  return async ({ exec }, next) => {
    const earlier = remembered.get(exec.name);
    if (earlier) return earlier;
    const verdict = await next();
    if (
      verdict.remember === 'tool' &&
      (verdict.outcome === 'allowed-once' || verdict.outcome === 'rejected')
    ) {
      remembered.set(exec.name, {
        outcome: verdict.outcome,
        ...(verdict.reason === undefined ? {} : { reason: verdict.reason }),
      });
    }
    return verdict;
  };
}

function toArgumentText(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
