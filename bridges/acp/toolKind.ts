import type * as acp from '@agentclientprotocol/sdk';
import type { AcpSession } from './types.js';

const TOOL_KINDS: ReadonlySet<string> = new Set<acp.ToolKind>([
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'think',
  'fetch',
  'switch_mode',
  'other',
]);

/** A tool's ACP kind from the session's tools (`defineTool({ kind })`), `other` when it has none. */
export function toToolKindFrom(session: AcpSession | undefined, toolName: string): acp.ToolKind {
  const kind = session?.tools?.get(toolName)?.kind;
  return kind !== undefined && TOOL_KINDS.has(kind) ? (kind as acp.ToolKind) : 'other';
}
