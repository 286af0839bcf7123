/**
 * Who the log names for a seam's decision: the author a listener put on it (`by`, e.g. the hook
 * handler a bridge speaks for), else the deciding listener; `undefined` for the default decision.
 * @param outcome what a waterfall, onion or first-result dispatch returned
 */
export function deciderOf(outcome: {
  readonly decision: unknown;
  readonly decidedBy: string;
}): string | undefined {
  const { decision } = outcome;
  const by =
    decision !== null && typeof decision === 'object' ? (decision as { by?: unknown }).by : undefined;
  if (typeof by === 'string' && by !== '') return by;
  return outcome.decidedBy === 'default' ? undefined : outcome.decidedBy;
}
