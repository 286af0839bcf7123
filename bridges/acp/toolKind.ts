import type * as acp from '@agentclientprotocol/sdk';
import type { AcpSession } from './types.js';

/**
 * A tool's ACP kind from the session's tools (`defineTool({ kind })`, which already refuses kinds
 * outside ACP's list), `other` when it has none.
 */
export function toToolKindFrom(session: AcpSession | undefined, toolName: string): acp.ToolKind {
  return (session?.tools?.get(toolName)?.kind ?? 'other') as acp.ToolKind;
}
