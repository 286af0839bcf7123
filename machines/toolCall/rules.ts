import type { HookContext, ToolResult } from '../../kernel/index.js';
import { describeThrown } from '../../kernel/index.js';
import { createFailureResult, ToolMessage, withContexts } from '../../tools/index.js';
import type { ToolCallContext } from './types.js';

/** Why an `ask` did not become a grant; the model reads it as the denial message. */
export type ApprovalRefusal =
  | 'rejected'
  | 'cancelled'
  | 'expired'
  | 'unavailable'
  | 'no approval channel'
  | 'no agent'
  | 'deferred outside a turn';

/** The denial message for an approval that was not granted; it says which refusal happened. */
export function describeApprovalRefusal(toolName: string, refusal: ApprovalRefusal, reason?: string): string {
  switch (refusal) {
    case 'rejected':
    case 'cancelled':
    case 'expired':
      return `Approval for tool "${toolName}" was ${refusal}${reason ? `: ${reason}` : ''}`;
    case 'unavailable':
      return `Approval for tool "${toolName}" is unavailable`;
    case 'no approval channel':
      return `Tool "${toolName}" needs approval, but there is no approval channel`;
    case 'no agent':
      return `Tool "${toolName}" needs approval, but the call has no agent to ask through (pass \`approval\` to tools.execute)`;
    case 'deferred outside a turn':
      return `Approval for tool "${toolName}" was deferred, but only a call of an agent's turn can wait for a later answer`;
  }
}

/** A `PIPELINE_ERROR` result for a failed phase. */
export function createPipelineError(error: unknown): ToolResult {
  return createFailureResult('PIPELINE_ERROR', describeThrown(error));
}

/** The contexts a call returns, in order: pre-execute's, the body's, post-execute's. */
export function collectContexts(context: ToolCallContext): HookContext[] {
  return [...context.contexts.pre, ...context.contexts.body, ...context.contexts.post];
}

/** The result with its contexts attached: what finalize, `tools/result` and the caller see. */
export function assembleResult(context: ToolCallContext): ToolResult {
  const result = context.result ?? createPipelineError(new Error('The tool call settled without a result'));
  return withContexts(result, collectContexts(context));
}

/** A cancel abandoned post-execute: a success becomes `ABORTED` (policy never reviewed its content). */
export function abandonReview(result: ToolResult | null): ToolResult {
  if (result?.isError) return result;
  return createFailureResult('ABORTED', ToolMessage.aborted());
}

/** The result of a body still running when the cancel grace ran out. */
export function createDidNotStop(): ToolResult {
  return createFailureResult('ABORTED', ToolMessage.aborted(), ToolMessage.didNotStop);
}

/** The result of a call cancelled before its body could start. */
export function createAbortedBeforeDispatch(): ToolResult {
  return createFailureResult('ABORTED_BEFORE_DISPATCH', ToolMessage.abortedBeforeDispatch());
}
