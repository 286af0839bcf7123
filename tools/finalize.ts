import { z } from 'zod';
import { type ContentBlock, ContentBlockSchema, describeThrown, type ToolResult } from '../kernel/index.js';
import type { ToolExecution } from '../seams/index.js';
import { formatIssues } from '../seams/index.js';
import { boundToolResult, maxContentBytesOf } from './boundContent.js';
import { ToolPipelineError } from './errors.js';
import { deepFreezeJson, snapshotJson } from './json.js';
import { type ContentFinalizer, definitionAtSeal } from './seal.js';

const ContentSchema = z.array(ContentBlockSchema);

/**
 * Runs a tool's `finalizeContent` once on the frozen result; it may only replace `content`
 * (`undefined` keeps it). A throw or invalid content throws `ToolPipelineError`.
 */
export function runFinalizer(
  finalize: ContentFinalizer,
  exec: ToolExecution,
  result: ToolResult,
): ToolResult {
  let raw: unknown;
  try {
    raw = finalize(exec, result);
  } catch (error) {
    throw new ToolPipelineError(`finalizeContent of tool "${exec.name}" threw: ${describeThrown(error)}`, {
      cause: error,
    });
  }
  if (raw === undefined) return result;
  const parsed = ContentSchema.safeParse(raw);
  const copy = parsed.success ? snapshotJson(raw, 'content') : undefined;
  if (!parsed.success || !copy?.ok) {
    const detail = parsed.success ? 'content is not plain JSON' : formatIssues(parsed.error.issues, raw);
    throw new ToolPipelineError(`finalizeContent of tool "${exec.name}" returned invalid content: ${detail}`);
  }
  const finalized = deepFreezeJson({ ...result, content: copy.value as ContentBlock[] });
  return boundToolResult(finalized, maxContentBytesOf(definitionAtSeal(exec)));
}
