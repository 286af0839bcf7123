import type { Violation } from '../session/index.js';
import { formatViolation } from '../session/index.js';

/** Thrown by `expectInvariants()`: the log or the inbox ledger broke at least one invariant. */
export class InvariantViolationError extends Error {
  readonly code = 'INVARIANT_VIOLATION' as const;
  /** What broke, as `checkInvariants` and `checkLedger` returned it. */
  readonly violations: readonly Violation[];

  constructor(violations: readonly Violation[]) {
    const count = violations.length === 1 ? '1 violation' : `${violations.length} violations`;
    super(
      `Expected the session log and inbox ledger to keep every invariant, got ${count}:\n` +
        violations.map((violation) => `  - ${formatViolation(violation)}`).join('\n'),
    );
    this.name = 'InvariantViolationError';
    this.violations = violations;
  }
}
