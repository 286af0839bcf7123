import type { z } from 'zod';
import {
  ApprovalDecisionSchema,
  ContinuationDecisionSchema,
  ContinuationStopSchema,
  PostToolDecisionSchema,
  PrepareDecisionSchema,
  PreToolDecisionSchema,
  PromptDecisionSchema,
  RequestErrorDecisionSchema,
  ToolResultSchema,
} from '../kernel/index.js';
import { formatIssues } from './describe.js';
import { SeamListenerError } from './errors.js';
import type { SeamName } from './types.js';

/** The schema every listener result of a deciding seam must satisfy (one table, one place). */
export const resultSchemas = {
  'agent/prompt-submit': PromptDecisionSchema,
  'agent/request-error': RequestErrorDecisionSchema,
  'agent/turn-continuation': ContinuationDecisionSchema,
  'agent/turn-stop': ContinuationStopSchema,
  'tools/prepare': PrepareDecisionSchema,
  'tools/pre-execute': PreToolDecisionSchema,
  'tools/execute': ToolResultSchema,
  'tools/post-execute': PostToolDecisionSchema,
  'tools/approval': ApprovalDecisionSchema,
} as const satisfies Partial<Record<SeamName, z.ZodType>>;

export type DecidingSeamName = keyof typeof resultSchemas;

/**
 * Checks a listener's result against its seam's schema and returns the original object (its
 * identity decides `decidedBy`); throws `SeamListenerError` `INVALID_DECISION` otherwise.
 */
export function validateResult<T>(seam: DecidingSeamName, listener: string, rawResult: unknown): T {
  const parsed = resultSchemas[seam].safeParse(rawResult);
  if (parsed.success) return rawResult as T;
  const what = seam === 'tools/execute' ? 'result' : 'decision';
  // A missing result is almost always a forgotten `return` in front of `next()`.
  const hint = rawResult === undefined ? ' (did the listener forget to `return next()`?)' : '';
  const detail = `returned an invalid ${what}: ${formatIssues(parsed.error.issues, rawResult)}${hint}`;
  throw new SeamListenerError('INVALID_DECISION', seam, listener, detail);
}
