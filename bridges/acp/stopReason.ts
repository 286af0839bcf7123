import type { StopReason } from '@agentclientprotocol/sdk';

/** A turn's end reason as recorded in `turn/end`. */
export interface EndReason {
  readonly kind: string;
  readonly message?: string;
  readonly code?: string;
  readonly step?: number;
}

/**
 * The ACP stop reason of a turn's end; `error` has none (it becomes a JSON-RPC error).
 * @param reason `turn/end.reason`
 * @param rejected what a blocked prompt answers (`refusal` by default)
 */
export function toStopReason(reason: EndReason, rejected: 'refusal' | 'cancelled'): StopReason | 'error' {
  switch (reason.kind) {
    case 'completed':
      return 'end_turn';
    case 'max-tokens':
      return 'max_tokens';
    case 'max-steps':
      return 'max_turn_requests';
    case 'rejected':
      return rejected;
    case 'error':
      return 'error';
    default:
      // aborted, disposed, interrupted: the turn did not finish its work.
      return 'cancelled';
  }
}
