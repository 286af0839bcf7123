import type { ContentBlock, HookContext, PostToolDecision, ToolResult } from '../kernel/index.js';
import type { ToolExecution } from '../seams/index.js';
import { boundToolResult, maxContentBytesOf } from './boundContent.js';
import { ToolPipelineError } from './errors.js';
import { deepFreezeJson } from './json.js';
import { parseToolArgs, renderToolValue } from './output.js';
import { createFailureResult, withoutContexts } from './results.js';
import { definitionAtSeal } from './seal.js';
import type { ToolRegistryCore } from './types.js';

/** What a post-execute decision did to a result; contexts are the decision's own. */
export interface AppliedPostDecision {
  readonly result: ToolResult;
  readonly contexts: readonly HookContext[];
  /** A block discards the contexts the body deferred. */
  readonly blocked: boolean;
}

/**
 * Applies a `tools/post-execute` decision: `accept` keeps or replaces content, `accept{value}`
 * re-validates and re-renders, `block` turns the result into `BLOCKED`. It never turns a failure
 * into a success; an inapplicable decision throws `ToolPipelineError`.
 */
export function applyPostDecision(
  result: ToolResult,
  decision: PostToolDecision,
  exec: ToolExecution,
  tools: ToolRegistryCore,
): AppliedPostDecision {
  const contexts = decision.additionalContexts ?? [];
  // Content a decision supplies is the tool's result now: bounded like the tool's own.
  const limit = maxContentBytesOf(definitionAtSeal(exec) ?? tools.get(exec.name));
  if (decision.kind === 'block') {
    const blocked = createFailureResult('BLOCKED', describeFeedback(decision.feedback));
    return {
      result: boundToolResult(deepFreezeJson({ ...blocked, content: [...decision.feedback] }), limit),
      contexts,
      blocked: true,
    };
  }
  const hasContent = decision.content !== undefined;
  const hasValue = 'value' in decision && decision.value !== undefined;
  if (hasContent && hasValue) {
    throw new ToolPipelineError(
      'A tools/post-execute accept decision may replace content or value, not both',
    );
  }
  if (hasValue) {
    if (result.isError) {
      throw new ToolPipelineError(
        `tools/post-execute cannot replace the value of a failed result (${result.error.code}); block it instead`,
      );
    }
    const tool = tools.get(exec.name) ?? definitionAtSeal(exec);
    if (!tool)
      return {
        result: createFailureResult('UNKNOWN_TOOL', `Unknown tool "${exec.name}"`),
        contexts,
        blocked: false,
      };
    const args = parseToolArgs(tool, exec.arguments);
    return {
      result: renderToolValue(tool, decision.value, args.ok ? args.data : exec.arguments),
      contexts,
      blocked: false,
    };
  }
  const base = withoutContexts(result);
  return {
    result: hasContent
      ? boundToolResult(deepFreezeJson({ ...base, content: [...decision.content!] }), limit)
      : base,
    contexts,
    blocked: false,
  };
}

// The model sees the feedback itself; the error message is its text, for logs and UIs.
function describeFeedback(feedback: readonly ContentBlock[]): string {
  const text = feedback
    .map((block) =>
      block.type === 'text' || block.type === 'reasoning' ? block.text : `[${block.type} content]`,
    )
    .join('\n')
    .trim();
  return text === '' ? 'Blocked by tools/post-execute' : text;
}
