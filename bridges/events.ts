import { z } from 'zod';
import { defineLogEvent } from '../session/index.js';

const dialect = z.enum(['claude-code', 'codex']);

/** `hook/invoked`: one configured handler is about to run for an event of an open turn. */
export const hookInvoked = defineLogEvent(
  'hook/invoked',
  z.object({
    turn: z.number().int().positive(),
    event: z.string(),
    dialect,
    handlerId: z.string().min(1),
    matcher: z.string().optional(),
    /** The tool call a PreToolUse / PostToolUse hook ran for. */
    callId: z.string().optional(),
  }),
);

/** `hook/result`: what one handler decided (appended in config order after the merge). */
export const hookResult = defineLogEvent(
  'hook/result',
  z.object({
    turn: z.number().int().positive(),
    event: z.string(),
    handlerId: z.string().min(1),
    decision: z.enum(['allow', 'deny', 'ask', 'block', 'continue', 'stop', 'none', 'error', 'timeout']),
    exitCode: z.number().int().optional(),
    durationMs: z.number().nonnegative(),
    stderrSummary: z.string().optional(),
    notes: z.array(z.string()).optional(),
    callId: z.string().optional(),
    /**
     * What became of this hook's PreToolUse `updatedInput`: the call's rewrite (`applied`), replaced
     * by a later config entry's (`superseded`), or returned when the input was already sealed (`not-honored`).
     */
    updatedInput: z.enum(['applied', 'superseded', 'not-honored']).optional(),
  }),
);

export type HookInvokedData = z.infer<typeof hookInvoked.schema>;
export type HookResultData = z.infer<typeof hookResult.schema>;
