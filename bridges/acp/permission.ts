import type * as acp from '@agentclientprotocol/sdk';
import type { ApprovalAnswer, ApprovalDecision, JsonValue } from '../../kernel/index.js';
import type { ApprovalChannel, Listener } from '../../seams/types.js';
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
}

/**
 * The approval channel of one ACP session: an `ask` becomes `session/request_permission`.
 * @param link the session id, tool kinds and the client request
 */
export function createPermissionChannel(link: PermissionLink): ApprovalChannel {
  return {
    async request(question) {
      const toolCall = toToolCall(
        {
          turn: question.turn ?? 0,
          step: question.step ?? 0,
          callId: question.callId,
          name: question.toolName,
          arguments: toArgumentText(question.arguments),
        },
        link.kindOf,
      );
      // Why approval is asked (a hook's or a rule's reason) is shown with the call.
      const reason = question.reason?.trim();
      let response: acp.RequestPermissionResponse;
      try {
        response = await link.requestPermission({
          sessionId: link.sessionId,
          toolCall:
            reason === undefined || reason === ''
              ? toolCall
              : { ...toolCall, content: [{ type: 'content', content: { type: 'text', text: reason } }] },
          options: [...PERMISSION_OPTIONS],
        });
      } catch (error) {
        // A closed connection or a client that cannot ask: nobody approved, so the call is denied.
        link.report(`session/request_permission failed: ${(error as Error).message}`);
        return 'unavailable';
      }
      if (response.outcome.outcome === 'cancelled') return 'cancelled';
      return ANSWERS[response.outcome.optionId] ?? 'unavailable';
    },
  };
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
