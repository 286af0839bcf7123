import type {
  ContentBlock,
  HookContext,
  JsonValue,
  ToolError,
  ToolErrorCode,
  ToolResult,
} from '../kernel/index.js';
import { deepFreezeJson } from './json.js';

/** A failed result as the registry makes it: content `Error: <message>`, deep-frozen. */
export function createFailureResult(code: ToolErrorCode, message: string, note?: string): ToolResult {
  const error: ToolError = note === undefined ? { code, message } : { code, message, note };
  return deepFreezeJson({ isError: true, error, content: [{ type: 'text', text: `Error: ${message}` }] });
}

/** A successful result from an already-frozen value and its rendered content. */
export function createSuccessResult(value: JsonValue, content: readonly ContentBlock[]): ToolResult {
  return deepFreezeJson({ isError: false, value, content: [...content] });
}

/** The result with `additionalContexts` replaced (the key is left out when there are none). */
export function withContexts(result: ToolResult, contexts: readonly HookContext[]): ToolResult {
  const { additionalContexts: _dropped, ...rest } = result;
  return deepFreezeJson(contexts.length > 0 ? { ...rest, additionalContexts: [...contexts] } : rest);
}

/** The result without `additionalContexts`: the machine keeps contexts apart until it assembles them. */
export function withoutContexts(result: ToolResult): ToolResult {
  return withContexts(result, []);
}

/** Failure messages the registry writes, in one place so tests can pin them. */
export const ToolMessage = {
  unknownTool: (name: string): string => `Unknown tool "${name}"`,
  aborted: (): string => 'Tool call aborted',
  abortedBeforeDispatch: (): string => 'Tool call aborted before dispatch',
  didNotStop: 'did not stop',
  timedOut: (name: string, ms: number): string => `Tool "${name}" timed out after ${ms} ms`,
} as const;
