import { z } from 'zod';
import {
  type ContentBlock,
  ContentBlockSchema,
  describeThrown,
  type JsonValue,
  type ToolResult,
} from '../kernel/index.js';
import { formatIssues } from '../seams/index.js';
import { boundToolResult, maxContentBytesOf } from './boundContent.js';
import { formatJsonFailure, snapshotJson } from './json.js';
import { createFailureResult, createSuccessResult } from './results.js';
import type { ToolDefinition } from './types.js';

const ContentSchema = z.array(ContentBlockSchema);

/** Validates sealed arguments with the tool's zod schema; a failure message names the bad field. */
export function parseToolArgs(
  tool: ToolDefinition,
  args: JsonValue,
): { ok: true; data: unknown } | { ok: false; message: string } {
  const parsed = tool.parameters.safeParse(args);
  if (parsed.success) return { ok: true, data: parsed.data };
  // Text that was not JSON stays a string; say so instead of "expected object".
  const detail =
    typeof args === 'string'
      ? 'the arguments are not valid JSON text'
      : formatIssues(parsed.error.issues, args);
  return { ok: false, message: `Invalid arguments for tool "${tool.name}": ${detail}` };
}

/**
 * Turns a tool's returned value into its canonical success result: snapshot as plain JSON, check
 * the output schema, render. Any failure becomes `INVALID_TOOL_OUTPUT`.
 */
export function renderToolValue(tool: ToolDefinition, rawValue: unknown, args: unknown): ToolResult {
  const snapshot = snapshotJson(rawValue, 'value');
  if (!snapshot.ok) {
    const hint = rawValue === undefined ? ' (return null for "no value")' : '';
    return invalidOutput(
      `Tool "${tool.name}" returned a value that is not plain JSON: ${formatJsonFailure(snapshot)}${hint}`,
    );
  }
  const value = snapshot.value;
  const schema = tool.output?.schema;
  if (schema) {
    const checked = schema.safeParse(value);
    if (!checked.success) {
      return invalidOutput(
        `Tool "${tool.name}" returned invalid output: ${formatIssues(checked.error.issues, value)}`,
      );
    }
  }
  let rawContent: unknown;
  try {
    rawContent = tool.output?.render ? tool.output.render(value, args) : renderDefault(value);
  } catch (error) {
    return invalidOutput(`output.render of tool "${tool.name}" threw: ${describeThrown(error)}`);
  }
  const content = ContentSchema.safeParse(rawContent);
  const copy = content.success ? snapshotJson(rawContent, 'content') : undefined;
  if (!content.success || !copy?.ok) {
    const detail = content.success
      ? 'content is not plain JSON'
      : formatIssues(content.error.issues, rawContent);
    return invalidOutput(`output.render of tool "${tool.name}" returned invalid content: ${detail}`);
  }
  return boundToolResult(createSuccessResult(value, copy.value as ContentBlock[]), maxContentBytesOf(tool));
}

/** The default presentation: a string is one text block, anything else its JSON text. */
export function renderDefault(value: JsonValue): ContentBlock[] {
  return [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }];
}

function invalidOutput(message: string): ToolResult {
  return createFailureResult('INVALID_TOOL_OUTPUT', message);
}
