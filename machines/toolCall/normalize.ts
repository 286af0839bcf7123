import { type ToolResult, ToolResultSchema } from '../../kernel/index.js';
import type { ToolExecution } from '../../seams/index.js';
import { formatIssues } from '../../seams/index.js';
import {
  boundToolResult,
  createFailureResult,
  maxContentBytesOf,
  parseToolArgs,
  renderToolValue,
  snapshotJson,
  ToolMessage,
  ToolPipelineError,
  type ToolRegistryCore,
  withContexts,
} from '../../tools/index.js';

/**
 * Normalizes a result a `tools/execute` wrapper authored (or took from elsewhere): a success is
 * trusted only for its value, which is re-validated and re-rendered; a failure is copied and frozen.
 * Its `additionalContexts` are kept.
 */
export function normalizeAroundResult(
  raw: unknown,
  exec: ToolExecution,
  tools: ToolRegistryCore,
): ToolResult {
  const parsed = ToolResultSchema.safeParse(raw);
  const copy = parsed.success ? snapshotJson(raw, 'result') : undefined;
  if (!parsed.success || !copy?.ok) {
    const detail = parsed.success ? 'it is not plain JSON' : formatIssues(parsed.error.issues, raw);
    throw new ToolPipelineError(
      `tools/execute returned an invalid result for tool "${exec.name}": ${detail}`,
    );
  }
  const result = copy.value as ToolResult;
  if (result.isError) return boundToolResult(result, maxContentBytesOf(tools.get(exec.name)));
  const contexts = result.additionalContexts ?? [];
  const tool = tools.get(exec.name);
  if (!tool)
    return withContexts(createFailureResult('UNKNOWN_TOOL', ToolMessage.unknownTool(exec.name)), contexts);
  const args = parseToolArgs(tool, exec.arguments);
  return withContexts(renderToolValue(tool, result.value, args.ok ? args.data : exec.arguments), contexts);
}
